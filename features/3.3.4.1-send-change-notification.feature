Feature: 3.3.4.1 Send Change Notification - one event, one prepared and sent message
  The higher layer raises Send Change Notification with an operation and the directory object it
  concerns; a target's client prepares a Version 0x01 or 0x02 message about that object and sends it
  as 3.3.5.3 describes.

  Background:
    Given the directory publishes the queue orders
    And the directory publishes the queue manager

  @MQCN-3.3.4.1-1 @MQCN-3.3.4.1-2 @MQCN-3.3.4.1-3
  Scenario Outline: A <kind> client handles <operation> about <object>
    Given a <kind> client
    When the client is initialised towards the queue manager
    And the client sends a "<operation>" notification
    Then the client emitted a message about <object> for <operation> (MQCN-3.3.4.1-1)
    And the emitted message is a conforming Version <version> message (MQCN-3.3.4.1-2)
    And every emitted Message was sent as 3.3.5.3 says (MQCN-3.3.4.1-3)

    Examples:
      | kind              | operation          | object            | version |
      | directory-service | QueueCreation      | the queue orders  | 0x01    |
      | directory-service | QueueUpdate        | the queue orders  | 0x01    |
      | directory-service | QueueDeletion      | the queue orders  | 0x01    |
      | directory-service | QueueManagerUpdate | the queue manager | 0x01    |
      | queue-manager     | QueueCreation      | the queue orders  | 0x02    |
      | queue-manager     | QueueUpdate        | the queue orders  | 0x02    |
      | queue-manager     | QueueDeletion      | the queue orders  | 0x02    |
      | queue-manager     | QueueManagerUpdate | the queue manager | 0x02    |

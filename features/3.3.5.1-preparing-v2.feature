Feature: 3.3.5.1 Preparing a Change Notification Message Version 0x02
  A target's queue-manager client turns each change into exactly one Version 0x02 message whose
  Notification Body names the event, the changed object and the directory server it used, and
  hands it to MSMQ for the queue manager that owns the object.

  Background:
    Given a queue-manager client named "dc7.example.com"
    And the directory publishes the queue orders
    And the directory publishes the queue manager

  @MQCN-3.3.5.1-1 @MQCN-3.3.5.1-2 @MQCN-3.3.5.1-3 @MQCN-3.3.5.1-4 @MQCN-3.3.5.1-5 @MQCN-3.3.5.1-6 @MQCN-3.3.5.1-7 @MQCN-3.3.5.1-9 @MQCN-3.3.5.1-10 @MQCN-3.3.5.1-11
  Scenario Outline: A queue-manager client prepares a <operation> notification
    When the client is initialised towards the queue manager
    And the client sends a "<operation>" notification
    Then the emitted message carries a Notification Body (MQCN-3.3.5.1-1)
    And the emitted Notification Body matches the ABNF of 2.2.5 (MQCN-3.3.5.1-2)
    And the emitted Event token is <event> (MQCN-3.3.5.1-3)
    And the emitted ObjectGuid token is the GUID of <object> (MQCN-3.3.5.1-4)
    And the emitted DomainController token is "dc7.example.com" (MQCN-3.3.5.1-5)
    And every emitted message has Version 0x02 (MQCN-3.3.5.1-6)
    And the emitted message has NumberOfUpdateNotifications 0x01 (MQCN-3.3.5.1-7)
    And the emitted Data holds the Notification Body and nothing else (MQCN-3.3.5.1-9)
    And the emitted message travels as the Body of an MSMQ Message (MQCN-3.3.5.1-10)
    And every emitted Message was sent as 3.3.5.3 says (MQCN-3.3.5.1-11)

    Examples:
      | operation          | event | object            |
      | QueueCreation      | 1     | the queue orders  |
      | QueueUpdate        | 2     | the queue orders  |
      | QueueDeletion      | 3     | the queue orders  |
      | QueueManagerUpdate | 4     | the queue manager |

  @MQCN-3.3.5.1-8 @MQCN-3.3.5.1-7
  Scenario: A queue-manager client sends one notification per message
    When the client is initialised towards the queue manager
    And the client notifies every kind of change
    Then the client emitted exactly 4 messages (MQCN-3.3.5.1-8)
    And the emitted message has NumberOfUpdateNotifications 0x01 (MQCN-3.3.5.1-7)
    And each Send Change Notification produced exactly one message (MQCN-3.3.5.1-8)

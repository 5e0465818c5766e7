Feature: 3.3.3 Client initialisation - opening the OutgoingQueue to a notification queue
  Before it sends anything, a target's client opens an OutgoingQueue towards the destination queue
  manager's private notification queue, for sending, without denying anyone else.

  Scenario Outline: A <kind> client opens the OutgoingQueue towards <destination>
    Given a <kind> client
    When the client is initialised towards <destination>
    Then the client opened an OutgoingQueue (MQCN-3.3.3-1)
    And its DestinationFormatName is the NOTIFY_QUEUE_PRIVATE of <destination> (MQCN-3.3.3-2)
    And its NextHops is empty (MQCN-3.3.3-3)
    And it was opened with the access SendAccess (MQCN-3.3.3-4)
    And it was opened with the share mode DenyNone (MQCN-3.3.3-5)

    @MQCN-3.3.3-1 @MQCN-3.3.3-2 @MQCN-3.3.3-3 @MQCN-3.3.3-4 @MQCN-3.3.3-5
    Examples:
      | kind              | destination           |
      | directory-service | the queue manager     |
      | directory-service | another queue manager |
      | queue-manager     | the queue manager     |
      | queue-manager     | another queue manager |

  @MQCN-3.3.3-1 @MQCN-3.3.5.3-13
  Scenario Outline: A <kind> client sends its notifications through the OutgoingQueue it opened
    3.3.5.3 enqueues every Message to the OpenQueueDescriptor that 3.3.3 created: a client that
    reports no Open Queue at initialisation has nothing to enqueue them to.

    Given a <kind> client
    And the directory publishes the queue orders
    And the directory publishes the queue manager
    When the client is initialised towards the queue manager
    And the client notifies every kind of change
    Then the client opened an OutgoingQueue (MQCN-3.3.3-1)
    And every emitted Message went to the queue opened at initialisation (MQCN-3.3.5.3-13)

    Examples:
      | kind              |
      | directory-service |
      | queue-manager     |

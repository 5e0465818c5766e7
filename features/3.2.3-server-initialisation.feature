Feature: 3.2.3 Server initialisation - the notification queue and the dequeue loop
  On start a queue manager opens its own private notification queue to receive from it, shared
  with everyone, and from then on takes notifications off that queue one after another.

  Background:
    Given a queue manager that owns the queue orders

  @MQCN-3.2.3-1
  Scenario: The server side opens its notification queue when it starts
    When the server side starts
    Then the server raised an Open Queue for its notification queue (MQCN-3.2.3-1)

  @MQCN-3.2.3-2 @MQCN-3.2.3-3 @MQCN-3.2.3-4
  Scenario Outline: Queue manager <guid> opens NOTIFY_QUEUE_PRIVATE for receiving, DenyNone
    Given the queue manager's identifier is <guid>
    When the server side starts
    Then the Open Queue names the format name PRIVATE=<guid>\3 (MQCN-3.2.3-2)
    And the Open Queue asks for the access ReceiveAccess (MQCN-3.2.3-3)
    And the Open Queue asks for the share mode DenyNone (MQCN-3.2.3-4)

    Examples:
      | guid                                 |
      | 6f1c3a9e-2b4d-4c5e-8f70-1a2b3c4d5e6f |
      | 11111111-2222-4333-8444-555555555555 |

  @MQCN-3.2.3-5
  Scenario: The loop takes notifications one after another: each is applied in turn
    Given the server side has started
    Then 4 Quota changes of the queue orders sent one after another are each applied in turn (MQCN-3.2.3-5)

  @MQCN-3.2.3-5
  Scenario: The loop takes a directory-service notification and a queue-manager one in turn
    Given the directory publishes the queue orders with other values
    And the server side has started
    When the target receives a Quota change of the queue orders and then a Version 0x02 change of it
    Then the queue orders now holds what the directory publishes (MQCN-3.2.3-5)

  @MQCN-3.2.5-1
  Scenario: The notification queue is open as 3.2.3 describes before the first notification is handled
    When the server side starts
    Then the Open Queue is the one 3.2.3 describes (MQCN-3.2.5-1)
    When the target receives a Quota change of the queue orders
    Then the Quota of the queue orders is 7777 (MQCN-3.2.5-1)

  @MQCN-3.2.3-6
  Scenario Outline: In workgroup mode a <profile> queue manager's notification queue is <state> (note 8)
    Given the target follows the product profile "<profile>"
    And the queue manager runs in workgroup mode
    When the server side starts
    Then the notification queue is <state> (MQCN-3.2.3-6)
    And a Quota change of the queue orders is <handled> (MQCN-3.2.3-6)

    Examples:
      | profile              | state      | handled     |
      | windows-nt4          | opened     | applied     |
      | windows-2000         | opened     | applied     |
      | windows-xp-2003      | opened     | applied     |
      | windows-vista-2008r2 | not opened | not applied |
      | windows-8-later      | not opened | not applied |

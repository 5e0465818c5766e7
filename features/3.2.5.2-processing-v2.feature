Feature: 3.2.5.2 Processing a Version 0x02 message - the directory is the source of truth
  A notification from another queue manager only says what happened to which object and which
  directory server saw it; the receiving queue manager reads the object from that server, with
  the attribute lists the section gives, and copies what it finds (a deletion needs no read).

  Background:
    Given a queue manager that owns the queue orders
    And the directory publishes the queue orders with other values

  # --- the object named by ObjectGuid, with data from the directory ----------------------------

  @MQCN-3.2.5.2-1
  Scenario: A change event updates the queue ObjectGuid names and no other
    Given the queue manager also owns the queue invoices
    And the directory publishes the queue invoices with other values
    And a Version 0x02 notification of event 2 about the queue invoices from "dc1.example.com"
    When the target receives the message
    Then the message changed exactly: the queue invoices (MQCN-3.2.5.2-1)
    And the queue invoices now holds what the directory publishes (MQCN-3.2.5.2-1)

  @MQCN-2.2.5-1
  Scenario Outline: What event <event> changes comes from a Read Directory of <object>, never from the body
    Given the directory publishes the new queue
    And the directory publishes the queue manager with other values
    And a Version 0x02 notification of event <event> about <object> from "dc1.example.com"
    When the target receives the message
    Then <object> was read from the directory (MQCN-2.2.5-1)
    And <object> now holds what the directory read returned (MQCN-2.2.5-1)

    Examples:
      | event | object            |
      | 1     | the new queue     |
      | 2     | the queue orders  |
      | 4     | the queue manager |

  @MQCN-3.2.5.2-2
  Scenario Outline: Event <event> is read from the directory server "<server>" the DomainController names
    Given the directory publishes the new queue
    And the directory publishes the queue manager with other values
    And a Version 0x02 notification of event <event> about <object> from "<server>"
    When the target receives the message
    Then the Read Directory for <object> went to the server "<server>" (MQCN-3.2.5.2-2)

    Examples:
      | event | object            | server                 |
      | 1     | the new queue     | dc1.example.com        |
      | 2     | the queue orders  | dc1.example.com        |
      | 4     | the queue manager | dc1.example.com        |
      | 2     | the queue orders  | DC-07.corp.example.net |
      | 2     | the queue orders  | dc2                    |

  # --- event 1: create queue -------------------------------------------------------------------

  @MQCN-3.2.5.2-3 @MQCN-3.2.5.2-4
  Scenario: Event 1 reads the new queue with the 16 attributes and creates a local copy
    Given the directory publishes the new queue
    And a Version 0x02 notification of event 1 about the new queue from "dc1.example.com"
    When the target receives the message
    Then the new queue was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-3)
    And the message changed exactly: the new queue added (MQCN-3.2.5.2-4)
    And the new queue now holds what the directory publishes (MQCN-3.2.5.2-4)

  @MQCN-3.2.5.2-4
  Scenario: Event 1 about a queue the queue manager already owns follows a reading of errata E-24
    Given the directory publishes the queue orders with other values
    And a Version 0x02 notification of event 1 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the outcome is what a reading of errata E-24 gives (MQCN-3.2.5.2-4)
    And the target still serves the next notification (MQCN-3.2.5.2-4)

  @MQCN-3.2.5.2-3 @MQCN-3.2.5.2-4
  Scenario: Event 1 about a queue the directory does not publish is read but creates nothing
    Given a Version 0x02 notification of event 1 about the new queue from "dc1.example.com"
    When the target receives the message
    Then the new queue was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-3)
    And the queue manager state is unchanged (MQCN-3.2.5.2-4)
    And the target still serves the next notification (MQCN-3.2.5.2-4)

  # --- event 2: change queue -------------------------------------------------------------------

  @MQCN-3.2.5.2-5 @MQCN-3.2.5.2-6
  Scenario: Event 2 reads the queue with the 16 attributes and replaces the local attributes
    Given a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the queue orders was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-5)
    And the queue orders now holds what the directory publishes (MQCN-3.2.5.2-6)

  # Every creation and change event reads the directory (3.2.5.2): a second notification about
  # the same object is read again, never answered from what the first read returned.
  @MQCN-3.2.5.2-5 @MQCN-3.2.5.2-6
  Scenario: Two change events about one queue read the directory twice
    Given the directory publishes the queue orders with other values
    And a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    And the target receives the message again
    Then the queue orders was read from the directory once for each of the 2 notifications (MQCN-3.2.5.2-5)
    And the queue orders now holds what the directory publishes (MQCN-3.2.5.2-6)

  @MQCN-3.2.5.2-6
  Scenario: Event 2 about a queue the queue manager does not own creates nothing
    Given the directory publishes the queue invoices with other values
    And a Version 0x02 notification of event 2 about the queue invoices from "dc1.example.com"
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.2-6)

  # --- event 3: delete queue -------------------------------------------------------------------

  # 3.2.5.2 calls Delete Queue with iSkipDirectory True and no Read Directory; it does not forbid
  # one (errata E-25): what is judged is that the deletion is the whole outcome, read or not.
  @MQCN-3.2.5.2-7
  Scenario: Event 3 deletes the local queue, whatever the target read
    Given the queue manager also owns the queue invoices
    And a Version 0x02 notification of event 3 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the message changed exactly: the queue orders removed (MQCN-3.2.5.2-7)
    And the outcome is the deletion's, whatever the target read (MQCN-3.2.5.2-7)

  @MQCN-3.2.5.2-7 @MQCN-3.2.5-5
  Scenario: Event 3 about a queue the queue manager does not own changes nothing and the loop goes on
    Given a Version 0x02 notification of event 3 about an unknown queue from "dc1.example.com"
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.2-7)
    And the outcome is the deletion's, whatever the target read (MQCN-3.2.5.2-7)
    And the target still serves the next notification (MQCN-3.2.5-5)

  # --- event 4: change machine -----------------------------------------------------------------

  @MQCN-3.2.5.2-8 @MQCN-3.2.5.2-9
  Scenario: Event 4 reads the queue manager's three attributes and updates the local queue manager
    Given the directory publishes the queue manager with other values
    And a Version 0x02 notification of event 4 about the queue manager from "dc1.example.com"
    When the target receives the message
    Then the queue manager was read from the directory with the 3 attributes of 3.2.5.2 (MQCN-3.2.5.2-8)
    And the queue manager now holds what the directory read returned (MQCN-3.2.5.2-9)
    And the message changed exactly: the queue manager (MQCN-3.2.5.2-9)

  @MQCN-3.2.5.2-8 @MQCN-3.2.5.2-9
  Scenario: Two change events about the queue manager read the directory twice
    Given the directory publishes the queue manager with other values
    And a Version 0x02 notification of event 4 about the queue manager from "dc1.example.com"
    When the target receives the message
    And the target receives the message again
    Then the queue manager was read from the directory once for each of the 2 notifications (MQCN-3.2.5.2-8)
    And the queue manager now holds what the directory read returned (MQCN-3.2.5.2-9)

  @MQCN-3.2.5.2-8 @MQCN-3.2.5.2-9
  Scenario: Event 4 about another queue manager is read from the directory; the local queue manager follows a reading of errata E-23
    Given the directory publishes the queue manager with other values
    And the directory publishes another queue manager with other values
    And a Version 0x02 notification of event 4 about another queue manager from "dc1.example.com"
    When the target receives the message
    Then another queue manager was read from the directory with the 3 attributes of 3.2.5.2 (MQCN-3.2.5.2-8)
    And the outcome is what a reading of errata E-23 gives (MQCN-3.2.5.2-9)
    And the target still serves the next notification (MQCN-3.2.5.2-9)

  @MQCN-3.2.5.2-8 @MQCN-3.2.5.2-9
  Scenario: Event 4 when the directory does not publish the queue manager is read but changes nothing
    Given a Version 0x02 notification of event 4 about the queue manager from "dc1.example.com"
    When the target receives the message
    Then the queue manager was read from the directory with the 3 attributes of 3.2.5.2 (MQCN-3.2.5.2-8)
    And the queue manager state is unchanged (MQCN-3.2.5.2-9)
    And the target still serves the next notification (MQCN-3.2.5.2-9)

  # --- note <10>: other events -------------------------------------------------------------------

  @MQCN-3.3.5.1-12
  Scenario Outline: A notification whose Event token is <event> is ignored (note 10)
    Given a Version 0x02 notification with the Event token "<event>" about the queue orders
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.3.5.1-12)
    And the target still serves the next notification (MQCN-3.3.5.1-12)

    Examples:
      | event |
      | 0     |
      | 5     |
      | 9     |
      | 12    |

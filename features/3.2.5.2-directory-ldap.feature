Feature: 3.2.5.2 against a real directory - a read that finds nothing, lacks an attribute or waits
  With --directory ldap the scenario's directory is an LDAP server laid out as Active Directory
  holds it ([MS-MQDSSM]), and the suite sees every search the queue manager makes there. When a
  Read Directory fails, [MS-MQDMPR] 3.1.7.1.20 leaves what it returns undefined and MS-MQCN says
  no more, so these scenarios ask only what every reading admits (errata D-08): that the read was
  made as 3.2.5.2 says, that a read which succeeds with a default is copied as it came back, and
  that the queue manager goes on serving. Without --directory ldap they are not applicable.

  Background:
    Given the directory is an LDAP server
    And a queue manager that owns the queue orders

  # --- ObjectNotFound: the object is not in the directory ----------------------------------

  @MQCN-3.2.5.2-3 @MQCN-3.2.5-5
  Scenario: Event 1 about a queue the directory does not hold
    Given a Version 0x02 notification of event 1 about the new queue from "dc1.example.com"
    When the target receives the message
    Then the new queue was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-3)
    And the target still serves the next notification (MQCN-3.2.5-5)

  @MQCN-3.2.5.2-5 @MQCN-3.2.5-5
  Scenario: Event 2 about a queue the directory no longer holds
    Given a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the queue orders was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-5)
    And the target still serves the next notification (MQCN-3.2.5-5)

  @MQCN-3.2.5.2-8 @MQCN-3.2.5-5
  Scenario: Event 4 about a queue manager the directory does not hold
    Given a Version 0x02 notification of event 4 about the queue manager from "dc1.example.com"
    When the target receives the message
    Then the queue manager was read from the directory with the 3 attributes of 3.2.5.2 (MQCN-3.2.5.2-8)
    And the target still serves the next notification (MQCN-3.2.5-5)

  # --- an attribute missing from the object -------------------------------------------------

  @MQCN-3.2.5.2-3 @MQCN-3.2.5.2-4
  Scenario Outline: Event 1 about a queue published without its <attribute> copies the default the read gives
    Given the directory publishes the new queue without its <attribute>
    And a Version 0x02 notification of event 1 about the new queue from "dc1.example.com"
    When the target receives the message
    Then the new queue was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-3)
    And the message changed exactly: the new queue added (MQCN-3.2.5.2-4)
    And the new queue now holds what the directory publishes (MQCN-3.2.5.2-4)

    Examples:
      | attribute        |
      | Label            |
      | Type             |
      | Quota            |
      | JournalQuota     |
      | BasePriority     |
      | Journal          |
      | Authentication   |
      | PrivacyLevel     |
      | Transactional    |
      | MulticastAddress |

  @MQCN-3.2.5.2-5 @MQCN-3.2.5-5
  Scenario Outline: Event 2 about a queue published without its <attribute>, which no read can do without
    Given the directory publishes the queue orders without its <attribute>
    And a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the queue orders was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-5)
    And the target still serves the next notification (MQCN-3.2.5-5)

    Examples:
      | attribute  |
      | Security   |
      | CreateTime |
      | ModifyTime |

  # --- the Pathname as 3.1.6.11.2.1 computes it: from the DN, escapes removed, lower case ---------

  @MQCN-3.2.5.2-3 @MQCN-3.2.5.2-4
  Scenario Outline: Event 1 about a queue named <pathname> copies the Pathname in lower case
    Given the directory publishes the new queue named "<pathname>"
    And a Version 0x02 notification of event 1 about the new queue from "dc1.example.com"
    When the target receives the message
    Then the new queue was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-3)
    And the new queue holds the Pathname "<read>" (MQCN-3.2.5.2-4)

    Examples:
      | pathname            | read                |
      | qm1\\NewOrders      | qm1\\neworders      |
      | QM1\\NEWQ           | qm1\\newq           |
      | qm1\\Orders,EU      | qm1\\orders,eu      |
      | qm1\\A+B=C;D        | qm1\\a+b=c;d        |
      | qm1\\#Rush "ÄÖÜ" <1> | qm1\\#rush "äöü" <1> |

  # --- the directory changes between two notifications about one object ---------------------

  @MQCN-3.2.5.2-5 @MQCN-3.2.5.2-6
  Scenario: Event 2 twice, the queue changed in the directory between them, takes the second value
    Given the directory publishes the queue orders with other values
    And a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    And the directory then publishes the queue orders with the Quota 777001
    And the target receives the message again
    Then the queue orders was read from the directory once for each of the 2 notifications (MQCN-3.2.5.2-5)
    And the Quota of the queue orders is 777001 (MQCN-3.2.5.2-6)
    And the queue orders now holds what the directory publishes (MQCN-3.2.5.2-6)

  @MQCN-3.2.5.2-8 @MQCN-3.2.5.2-9
  Scenario: Event 4 twice, the queue manager changed in the directory between them, takes the second value
    Given the directory publishes the queue manager with other values
    And a Version 0x02 notification of event 4 about the queue manager from "dc1.example.com"
    When the target receives the message
    And the directory then publishes the queue manager with the QueueManagerQuota 777002
    And the target receives the message again
    Then the queue manager was read from the directory once for each of the 2 notifications (MQCN-3.2.5.2-8)
    And the QueueManagerQuota of the queue manager is 777002 (MQCN-3.2.5.2-9)
    And the queue manager now holds what the directory read returned (MQCN-3.2.5.2-9)

  # --- the server down, the server slow -----------------------------------------------------

  @MQCN-3.2.5-5
  Scenario: The directory server is down when event 2 arrives
    Given the directory publishes the queue orders with other values
    And the directory server is down
    And a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the target still serves the next notification (MQCN-3.2.5-5)

  @MQCN-3.2.5.2-5 @MQCN-3.2.5.2-6
  Scenario: The directory server answers each request after half a second
    Given the directory publishes the queue orders with other values
    And the directory server answers each request after 0.5 seconds
    And a Version 0x02 notification of event 2 about the queue orders from "dc1.example.com"
    When the target receives the message
    Then the queue orders was read from the directory with the 16 attributes of 3.2.5.2 (MQCN-3.2.5.2-5)
    And the queue orders now holds what the directory publishes (MQCN-3.2.5.2-6)

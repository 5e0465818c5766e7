Feature: 2.2.4 Change Notification Message - Version, NumberOfUpdateNotifications and Data
  The two header bytes are judged from both ends: a queue manager disregards a message whose header
  is wrong and keeps serving, and every message a target's client emits has a header that tells the
  truth about who sent it and what Data holds.

  Background:
    Given a queue manager that owns the queue orders
    And the directory publishes the queue orders

  @MQCN-2.2.4-1
  Scenario Outline: A queue manager disregards a message with <defect>
    Given a Version 0x01 message with <defect>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-2.2.4-1)
    And the target still serves the next notification (MQCN-2.2.4-1)

    Examples:
      | defect       |
      | Version 0x00 |
      | Version 0x03 |
      | Version 0xFF |

  @MQCN-2.2.4-1
  Scenario: A queue manager disregards every Version but 0x01 and 0x02 (generated)
    Then every generated Version other than 0x01 and 0x02 is disregarded (MQCN-2.2.4-1)

  @MQCN-2.2.4-1
  Scenario Outline: A <kind> client stamps every message with Version <version>
    Given a <kind> client
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every emitted message has Version <version> (MQCN-2.2.4-1)
    And every message the client emitted satisfies (MQCN-2.2.4-1)

    Examples:
      | kind              | version |
      | directory-service | 0x01    |
      | queue-manager     | 0x02    |

  @MQCN-2.2.4-2
  Scenario Outline: A queue manager disregards a Version 0x01 message with <defect>
    Given a Version 0x01 message with <defect>
    When the target receives the message
    Then the queue manager state is unchanged, or what the errata reading admitting the message gives (MQCN-2.2.4-2)
    And the target still serves the next notification (MQCN-2.2.4-2)

    Examples:
      | defect                                         |
      | NumberOfUpdateNotifications 2 with one update  |
      | NumberOfUpdateNotifications 3 with two updates |
      | NumberOfUpdateNotifications 0 with one update  |

  @MQCN-2.2.4-2
  Scenario: A queue manager applies every update NumberOfUpdateNotifications announces
    Given a conforming Version 0x01 message with 3 Quota changes of the queue orders
    When the target receives the message
    Then the Quota of the queue orders is the one the third update sets (MQCN-2.2.4-2)

  @MQCN-2.2.4-2
  Scenario Outline: A <kind> client counts the updates its Data carries
    Given a <kind> client
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every emitted NumberOfUpdateNotifications equals the updates in Data (MQCN-2.2.4-2)
    And every message the client emitted satisfies (MQCN-2.2.4-2)

    Examples:
      | kind              |
      | directory-service |
      | queue-manager     |

  @MQCN-2.2.4-3
  Scenario Outline: A queue manager disregards a Version 0x02 message with <defect>
    Given a Version 0x02 message about the queue orders with <defect>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-2.2.4-3)
    And the target still serves the next notification (MQCN-2.2.4-3)

    Examples:
      | defect                          |
      | NumberOfUpdateNotifications 0   |
      | NumberOfUpdateNotifications 2   |
      | NumberOfUpdateNotifications 255 |

  @MQCN-2.2.4-3
  Scenario: A queue manager acts on a Version 0x02 message with NumberOfUpdateNotifications 0x01
    Given a conforming Version 0x02 message about a change of the queue orders
    When the target receives the message
    Then the queue orders takes the directory's attributes (MQCN-2.2.4-3)

  @MQCN-2.2.4-3
  Scenario: A queue-manager client sets NumberOfUpdateNotifications 0x01 in every message
    Given a queue-manager client
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every emitted Version 0x02 message has NumberOfUpdateNotifications 0x01 (MQCN-2.2.4-3)
    And every message the client emitted satisfies (MQCN-2.2.4-3)

Feature: Section 6 - server product behaviour: batched processing and accepted Versions
  Later Windows queue managers hold notifications back and handle them in batches (a minute
  after a quiet spell, otherwise at the end of a 15-minute window; too many waiting means a
  refresh from the directory instead), while NT 4.0 and 2000 act at once but only on
  directory-service messages.  These are product notes: a target that differs is reported, not failed.

  Background:
    Given a queue manager that owns the queue orders
    And the directory publishes the queue orders

  # --- notes <3> and <14>: batching ------------------------------------------------------------

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: A later-Windows queue manager waits one minute before handling a first notification
    Given the target follows the product profile "windows-8-later"
    And the server side has started
    When a Quota change of the queue orders to 7001 arrives
    And 59 seconds pass
    Then the Quota of the queue orders is not yet 7001 (MQCN-1.6-3)
    When 2 more seconds pass
    Then the Quota of the queue orders is 7001 (MQCN-5.1-1)

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: A notification soon after a batch waits for the rest of the 15 minutes
    Given the target follows the product profile "windows-8-later"
    And the server side has started
    When a Quota change of the queue orders to 7001 arrives
    And 60 seconds pass
    Then the Quota of the queue orders is 7001 (MQCN-1.6-3)
    When 60 more seconds pass
    And a Quota change of the queue orders to 7002 arrives
    And 839 more seconds pass
    Then the Quota of the queue orders is not yet 7002 (MQCN-1.6-3)
    When 2 more seconds pass
    Then the Quota of the queue orders is 7002 (MQCN-5.1-1)

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: After more than 14 quiet minutes the wait is one minute again
    Given the target follows the product profile "windows-8-later"
    And the server side has started
    When a Quota change of the queue orders to 7001 arrives
    And 1000 seconds pass
    And a Quota change of the queue orders to 7002 arrives
    And 59 more seconds pass
    Then the Quota of the queue orders is not yet 7002 (MQCN-1.6-3)
    When 2 more seconds pass
    Then the Quota of the queue orders is 7002 (MQCN-5.1-1)

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario Outline: A notification <after> seconds after a batch is handled <wait> seconds after it arrives
    Given the target follows the product profile "windows-xp-2003"
    And the server side has started
    When a Quota change of the queue orders to 7001 arrives
    And 60 seconds pass
    Then the Quota of the queue orders is 7001 (MQCN-1.6-3)
    When <after> more seconds pass
    And a Quota change of the queue orders to 7002 arrives
    And <almost> more seconds pass
    Then the Quota of the queue orders is not yet 7002 (MQCN-1.6-3)
    When 2 more seconds pass
    Then the Quota of the queue orders is 7002 (MQCN-5.1-1)

    # 780 and 839: within 14 minutes, the rest of the 15 minutes; 840 (exactly 14 minutes): the
    # rest of the 15 minutes is one minute; 841 (just over 14 minutes): one minute from arrival.
    Examples:
      | after | wait | almost |
      | 780   | 120  | 119    |
      | 839   | 61   | 60     |
      | 840   | 60   | 59     |
      | 841   | 60   | 59     |

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: A notification arriving while the timer runs is handled when that timer fires
    Given the target follows the product profile "windows-8-later"
    And the server side has started
    When a Quota change of the queue orders to 7001 arrives
    And 30 seconds pass
    And a Quota change of the queue orders to 7002 arrives
    And 29 more seconds pass
    Then the Quota of the queue orders is not yet 7002 (MQCN-1.6-3)
    When 2 more seconds pass
    Then the Quota of the queue orders is 7002 (MQCN-5.1-1)

  @MQCN-1.6-3 @MQCN-3.2.5.2-2
  Scenario: A batching queue manager reads a Version 0x02 notification's object from the server it names when the timer fires
    Given the target follows the product profile "windows-8-later"
    And the directory publishes the queue invoices with other values
    And the queue manager also owns the queue invoices
    And a Version 0x02 notification of event 2 about the queue invoices from "DC-07.corp.example.net"
    When the target receives the message
    Then the Version 0x02 notification was applied (MQCN-1.6-3)
    And the Read Directory for the queue invoices went to the server "DC-07.corp.example.net" (MQCN-3.2.5.2-2)

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: 99 notifications waiting for one timer are all handled when it fires
    Given the target follows the product profile "windows-8-later"
    And the server side has started
    When 99 Quota changes of the queue orders arrive, the n-th setting 7000 + n
    And 61 seconds pass
    Then the Quota of the queue orders is 7099 (MQCN-1.6-3)

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario Outline: <count> notifications waiting for one timer give way to a refresh from the directory
    Given the target follows the product profile "windows-8-later"
    And the server side has started
    When <count> Quota changes of the queue orders arrive, the n-th setting 7000 + n
    And 61 seconds pass
    Then the queue orders was refreshed from the directory instead (MQCN-1.6-3)
    And the queue orders was refreshed from the directory instead (MQCN-5.1-1)

    Examples:
      | count |
      | 100   |
      | 150   |

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: After a batch the count starts again: 99 notifications waiting for the next timer are all handled
    Given the target follows the product profile "windows-xp-2003"
    And the server side has started
    When a Quota change of the queue orders to 6001 arrives
    And 61 seconds pass
    Then the Quota of the queue orders is 6001 (MQCN-1.6-3)
    When 99 Quota changes of the queue orders arrive, the n-th setting 7000 + n
    And 900 more seconds pass
    Then the Quota of the queue orders is 7099 (MQCN-1.6-3)
    And the Quota of the queue orders is 7099 (MQCN-5.1-1)

  @MQCN-1.6-3 @MQCN-5.1-1
  Scenario: After a batch, 100 notifications waiting for the next timer give way to a refresh from the directory
    Given the target follows the product profile "windows-xp-2003"
    And the server side has started
    When a Quota change of the queue orders to 6001 arrives
    And 61 seconds pass
    Then the Quota of the queue orders is 6001 (MQCN-1.6-3)
    When 100 Quota changes of the queue orders arrive, the n-th setting 7000 + n
    And 900 more seconds pass
    Then the queue orders was refreshed from the directory instead (MQCN-1.6-3)
    And the queue orders was refreshed from the directory instead (MQCN-5.1-1)

  @MQCN-1.6-3
  Scenario Outline: A <profile> queue manager handles a notification as soon as it arrives
    Given the target follows the product profile "<profile>"
    And the server side has started
    When a Quota change of the queue orders to 7001 arrives
    Then the Quota of the queue orders is 7001 (MQCN-1.6-3)

    Examples:
      | profile      |
      | windows-nt4  |
      | windows-2000 |

  # --- note <4>: which senders are listened to ---------------------------------------------------

  @MQCN-1.7-1
  Scenario Outline: A <profile> queue manager <handling> Version 0x02 notifications
    Given the target follows the product profile "<profile>"
    And the directory publishes the queue invoices with other values
    And the queue manager also owns the queue invoices
    And a Version 0x02 notification of event 2 about the queue invoices from "dc1.example.com"
    When the target receives the message
    Then the Version 0x02 notification was <outcome> (MQCN-1.7-1)
    And the target still serves the next notification (MQCN-1.7-1)

    Examples:
      | profile              | handling | outcome |
      | windows-nt4          | ignores  | ignored |
      | windows-2000         | ignores  | ignored |
      | windows-xp-2003      | handles  | applied |
      | windows-vista-2008r2 | handles  | applied |
      | windows-8-later      | handles  | applied |

  @MQCN-1.7-1
  Scenario Outline: A <profile> queue manager handles Version 0x01 notifications
    Given the target follows the product profile "<profile>"
    And a Quota change of the queue orders
    When the target receives the message
    Then the Quota of the queue orders is 7777 (MQCN-1.7-1)

    Examples:
      | profile         |
      | windows-2000    |
      | windows-8-later |

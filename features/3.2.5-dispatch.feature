Feature: 3.2.5 Dispatch - each dequeued body is read by its Version and the loop goes on
  The Version byte decides how a queue manager reads the rest of a notification.  Whatever it
  cannot read is dropped without a trace and the next notification is handled as usual; the
  spare byte at the end of the body and the Reserved bytes of an update never matter.

  Background:
    Given a queue manager that owns the queue orders
    And the directory publishes the queue orders

  @MQCN-3.2.5-2
  Scenario Outline: A queue manager reads and processes <message>
    Given <message>
    When the target receives the message
    Then the Quota of the queue orders is <quota> (MQCN-3.2.5-2)

    Examples:
      | message                                   | quota |
      | a Quota change of the queue orders        | 7777  |
      | a Version 0x02 change of the queue orders | 4242  |

  @MQCN-3.2.5-3
  Scenario Outline: A Version 0x01 message is read as its <count> Notification Updates
    Given a Version 0x01 message with <count> Quota changes of the queue orders
    When the target receives the message
    Then the Quota of the queue orders is <quota> (MQCN-3.2.5-3)

    Examples:
      | count | quota |
      | 1     | 7777  |
      | 2     | 7778  |
      | 7     | 7783  |
      | 255   | 8031  |

  @MQCN-3.2.5-3
  Scenario: A Version 0x01 message with one update of each kind has each read and applied
    Given the queue manager also owns the queue invoices
    And a Version 0x01 message with one update of each kind
    When the target receives the message
    Then the message changed exactly: the new queue added, the queue orders, the queue manager and the queue invoices removed (MQCN-3.2.5-3)

  @MQCN-3.2.5-3
  Scenario: Version 0x01 means Notification Updates: a Notification Body under Version 0x01 is disregarded
    Given a Version 0x02 change of the queue orders relabelled Version 0x01
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5-3)
    And no Read Directory was made (MQCN-3.2.5-3)
    And the target still serves the next notification (MQCN-3.2.5-3)

  @MQCN-3.2.5-4
  Scenario: Version 0x02 means a Notification Body: Notification Updates under Version 0x02 are disregarded
    Given a Quota change of the queue orders relabelled Version 0x02
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5-4)
    And the target still serves the next notification (MQCN-3.2.5-4)

  @MQCN-3.2.5-4
  Scenario: A Version 0x02 message is read as one Notification Body and handled as 3.2.5.2 says
    Given the directory publishes the queue invoices with other values
    And the queue manager also owns the queue invoices
    And a Version 0x02 notification of event 2 about the queue invoices from "dc1.example.com"
    When the target receives the message
    Then the queue invoices now holds what the directory publishes (MQCN-3.2.5-4)

  @MQCN-3.2.5-5
  Scenario Outline: A body with Version <version> is disregarded and the loop goes on
    Given a Quota change of the queue orders relabelled Version <version>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5-5)
    And the target still serves the next notification (MQCN-3.2.5-5)

    Examples:
      | version |
      | 0x00    |
      | 0x03    |
      | 0x10    |
      | 0x7F    |
      | 0xFF    |

  @MQCN-3.2.5-5
  Scenario Outline: A queue manager disregards <body> and goes on
    Given a malformed body: <body>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5-5)
    And the target still serves the next notification (MQCN-3.2.5-5)

    Examples:
      | body                                                        |
      | an empty body                                               |
      | a lone Version byte 0x01                                    |
      | a Version 0x01 header announcing an update that is missing  |
      | a Quota change cut in half                                  |
      | a Version 0x02 header without a Notification Body           |
      | a Version 0x02 body that is not UTF-16 text                 |
      | 4 KiB of 0xFF                                               |

  @MQCN-3.2.5-5
  Scenario: Generated garbage bodies are disregarded and the loop goes on
    Then every generated garbage body is disregarded and the next notification applied (MQCN-3.2.5-5)

  @MQCN-3.2.5-5
  Scenario: Every generated cut of a conforming message is disregarded and the loop goes on
    Then every generated cut of a Quota change is disregarded and the next notification applied (MQCN-3.2.5-5)

  @MQCN-3.2.5-5
  Scenario: Conforming and malformed notifications alternate: every conforming one is applied
    Then in a stream of 13 notifications alternating conforming and malformed ones each conforming one is applied (MQCN-3.2.5-5)

  @MQCN-3.3.5.3-8
  Scenario Outline: The spare byte after <message> changes nothing, whatever it holds
    Given the queue manager also owns the queue invoices
    And <message>
    Then the outcome is the same without the spare byte and whatever it holds (MQCN-3.3.5.3-8)

    Examples:
      | message                                             |
      | a Quota change of the queue orders                  |
      | a Version 0x01 message with one update of each kind |
      | a deletion of the queue orders                      |
      | a Version 0x02 change of the queue orders           |

  @MQCN-2.2.6-9
  Scenario Outline: The server ignores a Reserved field holding <filling>
    Given the queue manager also owns the queue invoices
    Then one update of each kind with Reserved holding <filling> has the outcome of a zero Reserved (MQCN-2.2.6-9)

    Examples:
      | filling                  |
      | 0xFF bytes               |
      | the bytes 0x01 to 0x18   |
      | ASCII text               |

  @MQCN-2.2.6-9
  Scenario: The server ignores any generated Reserved content
    Given the queue manager also owns the queue invoices
    Then every generated Reserved content gives the outcome of a zero Reserved (MQCN-2.2.6-9)

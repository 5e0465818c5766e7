Feature: 6 Product behaviour of the client side - who sends notifications (notes <1>, <2>, <5>, <9>)
  On Windows NT and Windows 2000 the MSMQ Directory Service sends the notification (Version 0x01);
  on later Windows the queue manager that made the change does (Version 0x02). A target that follows
  a product profile is told how it compares; these verdicts are information, never failures.

  Background:
    Given a client that sends the Version its product profile chooses
    And the directory publishes the queue orders
    And the directory publishes the queue manager

  @MQCN-1.6-1 @MQCN-1.6-2 @MQCN-2.2.4-4 @MQCN-3.3.4.1-4
  Scenario Outline: A client following "<profile>" sends Version <version> messages
    Given the target follows the product profile "<profile>"
    When the client notifies every kind of change
    Then the emitted messages have Version <version>, as note <1> says (MQCN-1.6-1)
    And the emitted messages have Version <version>, as note <2> says (MQCN-1.6-2)
    And the emitted messages have Version <version>, as note <5> says (MQCN-2.2.4-4)
    And the emitted messages have Version <version>, as note <9> says (MQCN-3.3.4.1-4)

    Examples:
      | profile              | version |
      | windows-nt4          | 0x01    |
      | windows-2000         | 0x01    |
      | windows-xp-2003      | 0x02    |
      | windows-vista-2008r2 | 0x02    |
      | windows-8-later      | 0x02    |

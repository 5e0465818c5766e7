Feature: 2.2.5 Notification Body - the Unicode mark-up a queue manager sends
  A queue manager that receives a body breaking the ABNF (event, GUID form, server name, encoding,
  element structure) disregards it and keeps serving; one that receives a conforming body acts on the
  object it names. Every body a target's queue-manager client emits matches the rule and names the
  changed queue or machine object.

  Background:
    Given a queue manager that owns the queue orders
    And the directory publishes the queue orders

  # --- server side: malformed bodies are disregarded ---

  Scenario Outline: A queue manager disregards a body with <defect>
    Given a Version 0x02 message about the queue orders with <defect>
    When the target receives the message
    Then the queue manager state is unchanged, or what the errata reading admitting the message gives (<requirement>)
    And the target still serves the next notification (<requirement>)

    @MQCN-2.2.5-2
    Examples: Event tokens
      | defect         | requirement  |
      | Event 0        | MQCN-2.2.5-2 |
      | Event 5        | MQCN-2.2.5-2 |
      | Event 12       | MQCN-2.2.5-2 |
      | an empty Event | MQCN-2.2.5-2 |

    @MQCN-2.2.5-5
    Examples: encodings
      | defect          | requirement  |
      | byte-order mark | MQCN-2.2.5-5 |
      | UTF-16BE text   | MQCN-2.2.5-5 |
      | UTF-8 text      | MQCN-2.2.5-5 |

    @MQCN-2.2.5-6
    Examples: element structure
      | defect                  | requirement  |
      | a misspelt root element | MQCN-2.2.5-6 |
      | no </Event> tag         | MQCN-2.2.5-6 |
      | elements out of order   | MQCN-2.2.5-6 |
      | an extra element        | MQCN-2.2.5-6 |
      | the ABNF's </ObjectGuid > closing tag | MQCN-2.2.5-6 |
      | two U+0000 after the body             | MQCN-2.2.5-6 |

    @MQCN-2.2.5-7
    Examples: object-guid forms
      | defect                      | requirement  |
      | a GUID in braces            | MQCN-2.2.5-7 |
      | a 13-digit last GUID group  | MQCN-2.2.5-7 |
      | a GUID without hyphens      | MQCN-2.2.5-7 |
      | a GUID with a non-hex digit | MQCN-2.2.5-7 |

    @MQCN-2.2.5-8
    Examples: DirectoryServiceServer names
      | defect                               | requirement  |
      | a 257-character server name          | MQCN-2.2.5-8 |
      | an empty server name                 | MQCN-2.2.5-8 |
      | a server name with a space           | MQCN-2.2.5-8 |
      | a server name with a non-ASCII letter | MQCN-2.2.5-8 |

  @MQCN-2.2.5-2
  Scenario: A queue manager disregards every Event token but 1, 2, 3 and 4 (generated)
    Then every generated Event token other than 1, 2, 3 and 4 is disregarded (MQCN-2.2.5-2)

  @MQCN-2.2.5-8
  Scenario: A queue manager disregards every server name with a character outside %x21-7E (generated)
    Then every generated server name with a non-VCHAR character is disregarded (MQCN-2.2.5-8)

  # --- server side: conforming bodies are acted on ---

  @MQCN-2.2.5-3
  Scenario: A queue manager refreshes the queue a conforming body names
    Given a conforming Version 0x02 message about a change of the queue orders
    When the target receives the message
    Then the queue orders takes the directory's attributes (MQCN-2.2.5-3)

  @MQCN-2.2.5-4
  Scenario: A queue manager refreshes itself when a conforming body names its machine object
    Given the directory publishes the queue manager
    And a conforming Version 0x02 message about a change of the queue manager
    When the target receives the message
    Then the queue manager takes the directory's attributes (MQCN-2.2.5-4)

  @MQCN-2.2.5-6
  Scenario Outline: A queue manager acts on a conforming body written with <form>
    Given a Version 0x02 message about the queue orders with <form>
    When the target receives the message
    Then the queue orders takes the directory's attributes (MQCN-2.2.5-6)

    Examples: ABNF literals match in any case (errata E-02); one terminator is allowed (E-03)
      | form                      |
      | lower-case tags           |
      | upper-case tags           |
      | an upper-case ObjectGuid  |
      | one U+0000 after the body |

  @MQCN-2.2.5-8
  Scenario: A queue manager accepts a server name of exactly 256 visible characters
    Given a conforming Version 0x02 message about the queue orders from a 256-character server
    When the target receives the message
    Then the queue orders takes the directory's attributes (MQCN-2.2.5-8)

  # --- client side: every body a queue-manager client emits ---

  @MQCN-2.2.5-2 @MQCN-2.2.5-3 @MQCN-2.2.5-4 @MQCN-2.2.5-5 @MQCN-2.2.5-6 @MQCN-2.2.5-7 @MQCN-2.2.5-8
  Scenario Outline: A queue-manager client's body about a <operation> conforms to the rule
    Given a queue-manager client
    And the directory publishes the queue manager
    When the client sends a "<operation>" notification
    Then the emitted ObjectGuid names <object> (MQCN-2.2.5-3)
    And the object the emitted ObjectGuid names is a <kind> object (MQCN-2.2.5-4)
    And every message the client emitted satisfies (MQCN-2.2.5-2 MQCN-2.2.5-5 MQCN-2.2.5-6 MQCN-2.2.5-7 MQCN-2.2.5-8)

    Examples:
      | operation          | object            | kind    |
      | QueueCreation      | the queue orders  | queue   |
      | QueueUpdate        | the queue orders  | queue   |
      | QueueDeletion      | the queue orders  | queue   |
      | QueueManagerUpdate | the queue manager | machine |

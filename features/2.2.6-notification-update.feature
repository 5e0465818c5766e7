Feature: 2.2.6 Notification Update - one directory-service change inside a Version 0x01 message
  A queue manager disregards a Version 0x01 message whose update has a wrong Command or UseGuid, a
  PathName or GuidIdentifier that does not fit UseGuid, or property arrays shorter than
  NumberOfProperties, and keeps serving; a conforming update is applied. Every update a target's
  directory-service client emits has the layout and values the section prescribes.

  Background:
    Given a queue manager that owns the queue orders

  # --- server side: malformed updates are disregarded ---

  Scenario Outline: A queue manager disregards an update with <defect>
    Given a Version 0x01 message with <defect>
    When the target receives the message
    Then the queue manager state is unchanged, or what the errata reading admitting the message gives (<requirement>)
    And the target still serves the next notification (<requirement>)

    @MQCN-2.2.6-1
    Examples: Command
      | defect       | requirement  |
      | Command 0x03 | MQCN-2.2.6-1 |
      | Command 0xFF | MQCN-2.2.6-1 |

    @MQCN-2.2.6-2 @MQCN-2.2.6-3
    Examples: UseGuid
      | defect                               | requirement  |
      | UseGuid 0x00 before a GuidIdentifier | MQCN-2.2.6-2 |
      | UseGuid 0x02                         | MQCN-2.2.6-3 |
      | UseGuid 0xFF                         | MQCN-2.2.6-3 |

    @MQCN-2.2.6-4
    Examples: PathName
      | defect                         | requirement  |
      | PathName without terminator    | MQCN-2.2.6-4 |
      | PathName with a lone surrogate | MQCN-2.2.6-4 |

    @MQCN-2.2.6-6 @MQCN-2.2.6-7
    Examples: GuidIdentifier
      | defect                       | requirement  |
      | UseGuid 0x01 with a PathName | MQCN-2.2.6-6 |
      | GuidIdentifier cut short     | MQCN-2.2.6-7 |

    @MQCN-2.2.6-10 @MQCN-2.2.6-11
    Examples: property arrays
      | defect                                       | requirement   |
      | NumberOfProperties beyond the PropertyIds    | MQCN-2.2.6-10 |
      | fewer PropertyValues than NumberOfProperties | MQCN-2.2.6-11 |

  @MQCN-2.2.6-1
  Scenario: A queue manager disregards every Command but 0x00, 0x01 and 0x02 (generated)
    Then every generated Command above 0x02 leaves the state unchanged (MQCN-2.2.6-1)

  # --- server side: conforming updates are applied ---

  @MQCN-2.2.6-1 @MQCN-2.2.6-2 @MQCN-2.2.6-7 @MQCN-2.2.6-10 @MQCN-2.2.6-11
  Scenario: A queue manager applies a conforming update that names the queue by GuidIdentifier
    Given a conforming Version 0x01 message changing the Quota of the queue orders
    When the target receives the message
    Then the target applies it with the Quota of the queue orders set (MQCN-2.2.6-2)
    And the target applies it with the Quota of the queue orders set (MQCN-2.2.6-7)
    And the target applies it with the Quota of the queue orders set (MQCN-2.2.6-10)
    And the target applies it with the Quota of the queue orders set (MQCN-2.2.6-11)

  @MQCN-2.2.6-3 @MQCN-2.2.6-4 @MQCN-2.2.6-5
  Scenario: A queue manager applies a conforming creation that names the queue by PathName
    Given a conforming Version 0x01 message creating the queue "qm1\new.orders_2"
    When the target receives the message
    Then the queue "qm1\new.orders_2" exists with that path name (MQCN-2.2.6-3)
    And the queue "qm1\new.orders_2" exists with that path name (MQCN-2.2.6-4)
    And the queue "qm1\new.orders_2" exists with that path name (MQCN-2.2.6-5)

  # --- client side: every update a directory-service client emits ---

  @MQCN-2.2.6-1 @MQCN-2.2.6-2 @MQCN-2.2.6-3 @MQCN-2.2.6-4 @MQCN-2.2.6-5 @MQCN-2.2.6-6 @MQCN-2.2.6-7 @MQCN-2.2.6-10 @MQCN-2.2.6-11
  Scenario: A directory-service client's updates have the 2.2.6 layout
    Given a directory-service client
    And the directory publishes the queue orders with distinctive values
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every emitted update has Command 0x00, 0x01 or 0x02 (MQCN-2.2.6-1)
    And every emitted update that carries a GuidIdentifier has UseGuid 0x01 (MQCN-2.2.6-2)
    And every emitted update that carries a PathName has UseGuid 0x00 (MQCN-2.2.6-3)
    And every emitted PathName is a null-terminated Unicode string (MQCN-2.2.6-4)
    And every emitted update with UseGuid 0x01 carries no PathName (MQCN-2.2.6-6)
    And every emitted update with UseGuid 0x01 carries a 16-byte GuidIdentifier (MQCN-2.2.6-7)
    And every message the client emitted satisfies (MQCN-2.2.6-1 MQCN-2.2.6-3 MQCN-2.2.6-4 MQCN-2.2.6-5 MQCN-2.2.6-7 MQCN-2.2.6-10 MQCN-2.2.6-11)

  @MQCN-2.2.6-8
  Scenario: A directory-service client may fill Reserved with zeros
    Given a directory-service client
    And the directory publishes the queue orders
    And the directory publishes the queue manager
    When the client notifies every kind of change
    Then every emitted update has 24 zero bytes in Reserved (MQCN-2.2.6-8)

  @MQCN-2.2.6-10 @MQCN-2.2.6-11
  Scenario Outline: A directory-service client's <operation> has as many PropertyIds and values as it announces
    Given a directory-service client
    And the directory publishes the queue orders
    And the directory publishes the queue manager
    When the client sends a "<operation>" notification
    Then the emitted update has NumberOfProperties PropertyIds (MQCN-2.2.6-10)
    And the emitted update has NumberOfProperties values of their types (MQCN-2.2.6-11)

    Examples:
      | operation          |
      | QueueCreation      |
      | QueueUpdate        |
      | QueueDeletion      |
      | QueueManagerUpdate |

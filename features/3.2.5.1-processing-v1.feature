Feature: 3.2.5.1 Processing a Version 0x01 message - updates from the directory service
  A queue manager accepts directory-service updates only from an authenticated queue-manager
  sender, works out what each update is about from its first property (or, for a deletion, from
  its second value), and applies exactly the attributes the section lists, ignoring the rest.

  Background:
    Given a queue manager that owns the queue orders

  # --- every update of the message, each to the object it names ----------------------------

  @MQCN-3.2.5.1-1
  Scenario: Every update of a message is applied to the object it names
    Given the queue manager also owns the queue invoices
    And a Version 0x01 message with one update of each kind
    When the target receives the message
    Then the message changed exactly: the new queue added, the queue orders, the queue manager and the queue invoices removed (MQCN-3.2.5.1-1)

  @MQCN-3.2.5.1-1
  Scenario: A queue update changes the queue its GuidIdentifier names and no other
    Given the queue manager also owns the queue invoices
    And an update of the queue invoices changing its Quota
    When the target receives the message
    Then the message changed only the Quota of the queue invoices, now 7777 (MQCN-3.2.5.1-1)

  @MQCN-3.2.5.1-1
  Scenario: Several updates of one queue in one message are applied in their order
    Given a Version 0x01 message with 3 Quota changes of the queue orders
    When the target receives the message
    Then the Quota of the queue orders is 7779 (MQCN-3.2.5.1-1)

  # --- authentication ----------------------------------------------------------------------

  @MQCN-3.2.5.1-2 @MQCN-3.2.5.1-3
  Scenario Outline: A Version 0x01 message whose SenderIdentifierType is <type> is disregarded whole
    Given the queue manager also owns the queue invoices
    And a Version 0x01 message with one update of each kind
    When the target receives the message with SenderIdentifierType <type>
    Then the queue manager state is unchanged (MQCN-3.2.5.1-3)
    And the target still serves the next notification (MQCN-3.2.5.1-3)

    Examples:
      | type |
      | None |
      | Sid  |

  @MQCN-3.2.5.1-2 @MQCN-3.2.5.1-4
  Scenario: A Version 0x01 message with AuthenticationLevel None is disregarded whole
    Given the queue manager also owns the queue invoices
    And a Version 0x01 message with one update of each kind
    When the target receives the message with AuthenticationLevel None
    Then the queue manager state is unchanged (MQCN-3.2.5.1-4)
    And the target still serves the next notification (MQCN-3.2.5.1-4)

  @MQCN-3.2.5.1-1 @MQCN-3.2.5.1-2
  Scenario Outline: A Version 0x01 message authenticated at level <level> is processed
    Given a Quota change of the queue orders
    When the target receives the message with AuthenticationLevel <level>
    Then the Quota of the queue orders is 7777 (MQCN-3.2.5.1-2)

    Examples:
      | level   |
      | Always  |
      | Sig10   |
      | Sig20   |
      | Sig30   |
      | XMLDSig |

  # --- the object type of a creation or an update: PropertyId[0] ---------------------------

  @MQCN-3.2.5.1-5 @MQCN-3.2.5.1-6
  Scenario Outline: PropertyId[0] above 1000: a <kind> led by <propid> changes <changed>
    Given a <kind> whose PropertyId[0] is <propid>
    When the target receives the message
    Then the message changed exactly: <changed> (MQCN-3.2.5.1-6)
    And the target still serves the next notification (MQCN-3.2.5.1-5)

    Examples:
      | kind           | propid             | changed             |
      | queue update   | PROPID_Q_SECURITY  | the queue orders    |
      | machine update | PROPID_QM_SECURITY | the queue manager   |
      | queue creation | PROPID_Q_SECURITY  | the new queue added |
      | queue update   | PROPID_D_SCOPE     | nothing             |
      | queue update   | PROPID_D_OBJTYPE   | nothing             |
      | machine update | PROPID_D_SCOPE     | nothing             |
      | queue creation | PROPID_D_OBJTYPE   | nothing             |
      | machine update | PROPID_D_OBJTYPE   | nothing             |
      | queue creation | PROPID_QM_SECURITY | nothing             |

  @MQCN-3.2.5.1-6 @MQCN-3.2.5.1-14
  Scenario: A queue update led by PROPID_QM_SECURITY is of object type 2: the queue it names is untouched, the queue manager follows errata E-23
    Given a queue update whose PropertyId[0] is PROPID_QM_SECURITY
    When the target receives the message
    Then the message left the queue orders as it was (MQCN-3.2.5.1-6)
    And the outcome is what a reading of errata E-23 gives (MQCN-3.2.5.1-14)
    And the target still serves the next notification (MQCN-3.2.5.1-5)

  @MQCN-3.2.5.1-5 @MQCN-3.2.5.1-7
  Scenario Outline: PropertyId[0] of 1000 or less: a <kind> led by <propid> changes <changed>
    Given a <kind> whose PropertyId[0] is <propid>
    When the target receives the message
    Then the message changed exactly: <changed> (MQCN-3.2.5.1-7)
    And the target still serves the next notification (MQCN-3.2.5.1-5)

    Examples:
      | kind           | propid               | changed             |
      | queue update   | PROPID_Q_QMID        | the queue orders    |
      | queue update   | PROPID_Q_QUOTA       | the queue orders    |
      | queue update   | PROPID_Q_LABEL       | the queue orders    |
      | machine update | PROPID_QM_MACHINE_ID | the queue manager   |
      | machine update | PROPID_QM_QUOTA      | the queue manager   |
      | queue creation | PROPID_Q_TYPE        | the new queue added |
      | queue creation | PROPID_Q_INSTANCE    | the new queue added |
      | queue creation | PROPID_QM_MACHINE_ID | nothing             |
      | queue update   | PROPID_Q_INSTANCE    | the queue orders    |
      | queue update   | PROPID_Q_ADS_PATH    | the queue orders    |
      | queue creation | PROPID_Q_ADS_PATH    | the new queue added |
      | machine update | PROPID_QM_SITE_ID    | the queue manager   |
      | machine update | PROPID_QM_OS         | the queue manager   |
      | queue creation | PROPID_QM_SITE_ID    | nothing             |
      | queue creation | PROPID_QM_OS         | nothing             |
      | queue update   | PROPID_QM_SITE_ID    | nothing             |

  @MQCN-3.2.5.1-5
  Scenario: A creation led by a machine property is no queue creation, and the next update still applies
    Given a Version 0x01 message of a queue creation led by PROPID_QM_MACHINE_ID and a Quota change of the queue orders
    When the target receives the message
    Then the message changed only the Quota of the queue orders, now 7777 (MQCN-3.2.5.1-5)

  @MQCN-3.2.5.1-5
  Scenario Outline: A creation of object type 2 is no machine update, even carrying the three modifiable properties (<naming>)
    Given a creation of object type 2 naming the queue manager by its <naming>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-5)
    And the target still serves the next notification (MQCN-3.2.5.1-5)

    Examples:
      | naming         |
      | PathName       |
      | GuidIdentifier |

  @MQCN-3.2.5.1-8
  Scenario: An update of object type 4 stops the message there; what it undoes follows errata E-14
    Given a Version 0x01 message of a Quota change to 7001, an update led by PROPID_D_SCOPE and a Quota change to 7003
    When the target receives the message
    Then the Quota of the queue orders is 7001, or 1000 where the whole message is undone (MQCN-3.2.5.1-8)
    And the target still serves the next notification (MQCN-3.2.5.1-8)

  @MQCN-3.2.5.1-8
  Scenario: What an update of object type 4 undoes covers the queue manager's attributes too (errata E-14)
    Given a Version 0x01 message of a Quota change to 7001, a QueueManagerQuota change to 7777 and an update led by PROPID_D_SCOPE
    When the target receives the message
    Then the message changed the Quota of the queue orders to 7001 and the QueueManagerQuota of the queue manager to 7777, or nothing where the whole message is undone (MQCN-3.2.5.1-8)
    And the target still serves the next notification (MQCN-3.2.5.1-8)

  # --- queue creation ------------------------------------------------------------------------

  @MQCN-3.2.5.1-9 @MQCN-3.2.5.1-10
  Scenario Outline: A queue creation with its 15 properties in <order> adds the queue with those values
    Given a creation of the new queue with distinctive values in <order>
    When the target receives the message
    Then the message changed exactly: the new queue added (MQCN-3.2.5.1-9)
    And the new queue holds the 15 values of the creation (MQCN-3.2.5.1-10)

    Examples:
      | order                   |
      | the spec's order        |
      | reverse order           |
      | PROPID_Q_SECURITY first |

  @MQCN-3.2.5.1-10 @MQCN-3.3.5.2-16
  Scenario: A queue creation that carries PROPID_Q_ADS_PATH is applied without taking the path
    Given a creation of the new queue with distinctive values and a PROPID_Q_ADS_PATH
    When the target receives the message
    Then the new queue holds the 15 values of the creation (MQCN-3.2.5.1-10)
    And the DirectoryPath of the new queue is not the PROPID_Q_ADS_PATH of the creation (MQCN-3.3.5.2-16)

  @MQCN-3.2.5.1-10
  Scenario: A creation of a queue the queue manager already owns follows a reading of errata E-24
    Given a creation of the queue orders with distinctive values
    When the target receives the message
    Then the outcome is what a reading of errata E-24 gives (MQCN-3.2.5.1-10)
    And the target still serves the next notification (MQCN-3.2.5.1-10)

  @MQCN-3.2.5.1-10
  Scenario: A creation of a queue the queue manager already owns, carrying only its path name and label, follows a reading of errata E-24
    Given a creation of the queue orders carrying only its identifier, the path name "qm1\orders" and the label "relabelled"
    When the target receives the message
    Then the outcome is what a reading of errata E-24 gives (MQCN-3.2.5.1-10)
    And the target still serves the next notification (MQCN-3.2.5.1-10)

  @MQCN-3.2.5.1-10
  Scenario: After a creation of a queue the queue manager already owns, the next update of the message follows the same reading of errata E-24
    Given a Version 0x01 message of a creation of the queue orders with distinctive values and a Quota change of the queue orders
    When the target receives the message
    Then the outcome is what a reading of errata E-24 gives (MQCN-3.2.5.1-10)
    And the target still serves the next notification (MQCN-3.2.5.1-10)

  @MQCN-3.2.5.1-9 @MQCN-3.2.5.1-10
  Scenario: A queue creation without PROPID_Q_INSTANCE follows a reading of errata E-22
    Given a creation of the new queue with distinctive values but no PROPID_Q_INSTANCE
    When the target receives the message
    Then the outcome is what a reading of errata E-22 gives (MQCN-3.2.5.1-10)
    And the target still serves the next notification (MQCN-3.2.5.1-10)

  @MQCN-3.2.5.1-9 @MQCN-3.2.5.1-10
  Scenario: A queue creation takes only the properties it carries; the other attributes start from the defaults
    Given a creation of the new queue carrying only its identifier, the path name "qm1\sparse" and the label "sparse label"
    When the target receives the message
    Then the new queue, if created, has the path name "qm1\sparse" and the label "sparse label" and no other attribute holds either (MQCN-3.2.5.1-10)
    And the target still serves the next notification (MQCN-3.2.5.1-9)

  # --- queue update ----------------------------------------------------------------------------

  @MQCN-3.2.5.1-12
  Scenario Outline: A queue update sets the <attribute> of the queue orders from <property>
    Given an update of the queue orders carrying <property> = <value>
    When the target receives the message
    Then the message changed only the <attribute> of the queue orders, now <value> (MQCN-3.2.5.1-12)

    Examples:
      | property               | value                                    | attribute      |
      | PROPID_Q_JOURNAL       | 1                                        | Journaling     |
      | PROPID_Q_QUOTA         | 4321                                     | Quota          |
      | PROPID_Q_BASEPRIORITY  | -3                                       | BasePriority   |
      | PROPID_Q_JOURNAL_QUOTA | 8765                                     | JournalQuota   |
      | PROPID_Q_SECURITY      | 0100148000000000000000000000000000000000 | Security       |
      | PROPID_Q_AUTHENTICATE  | 1                                        | Authentication |
      | PROPID_Q_PRIV_LEVEL    | 2                                        | PrivacyLevel   |

  @MQCN-3.2.5.1-12
  Scenario: A queue update of all seven modifiable properties sets all seven
    Given an update of the queue orders carrying all seven modifiable properties
    When the target receives the message
    Then the message changed exactly the seven attributes of the queue orders (MQCN-3.2.5.1-12)

  @MQCN-3.2.5.1-13
  Scenario: A queue update's PROPID_Q_LABEL does not change the label; its Quota change is applied
    Given an update of the queue orders changing its Quota and carrying PROPID_Q_LABEL = relabelled
    When the target receives the message
    Then the message changed only the Quota of the queue orders, now 7777 (MQCN-3.2.5.1-13)

  @MQCN-3.2.5.1-13
  Scenario Outline: A queue update ignores <property>; its Quota change is still applied
    Given an update of the queue orders changing its Quota and carrying <property> = <value>
    When the target receives the message
    Then the message changed only the Quota of the queue orders, now 7777 (MQCN-3.2.5.1-13)

    Examples:
      | property                   | value                                      |
      | PROPID_Q_TYPE              | 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d       |
      | PROPID_Q_PATHNAME          | qm1\\renamed                               |
      | PROPID_Q_CREATE_TIME       | 5                                          |
      | PROPID_Q_MODIFY_TIME       | 6                                          |
      | PROPID_Q_TRANSACTION       | 1                                          |
      | PROPID_Q_SCOPE             | 0                                          |
      | PROPID_Q_MULTICAST_ADDRESS | 234.5.6.7:9000                             |
      | PROPID_Q_ADS_PATH          | LDAP://CN=orders,CN=msmq,DC=example,DC=com |
      | PROPID_Q_INSTANCE          | b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e       |
      | PROPID_Q_QMID              | 11111111-2222-4333-8444-555555555555       |
      | PROPID_QM_QUOTA            | 4321                                       |
      | PROPID_QM_SECURITY         | 0100148000000000000000000000000000000000   |

  @MQCN-3.2.5.1-1 @MQCN-3.2.5.1-12
  Scenario: A queue update of a queue the queue manager does not own changes nothing
    Given an update of an unknown queue carrying all seven modifiable properties
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-12)
    And the target still serves the next notification (MQCN-3.2.5.1-12)

  # --- queue manager update ----------------------------------------------------------------------

  @MQCN-3.2.5.1-14
  Scenario Outline: A machine update sets the <attribute> of the queue manager from <property>
    Given an update of the queue manager carrying <property> = <value>
    When the target receives the message
    Then the message changed only the <attribute> of the queue manager, now <value> (MQCN-3.2.5.1-14)

    Examples:
      | property                | value                                    | attribute         |
      | PROPID_QM_QUOTA         | 4321                                     | QueueManagerQuota |
      | PROPID_QM_JOURNAL_QUOTA | 8765                                     | JournalQuota      |
      | PROPID_QM_SECURITY      | 0100148000000000000000000000000000000000 | Security          |

  @MQCN-3.2.5.1-14
  Scenario: A machine update of all three modifiable properties sets all three
    Given an update of the queue manager carrying all three modifiable properties
    When the target receives the message
    Then the message changed exactly the three attributes of the queue manager (MQCN-3.2.5.1-14)

  @MQCN-3.2.5.1-15
  Scenario Outline: A machine update ignores <property>; its QueueManagerQuota change is still applied
    Given an update of the queue manager changing its QueueManagerQuota and carrying <property> = <value>
    When the target receives the message
    Then the message changed only the QueueManagerQuota of the queue manager, now 7777 (MQCN-3.2.5.1-15)

    Examples:
      | property               | value                                                                      |
      | PROPID_QM_ADDRESS      | 0400010a7f000001                                                           |
      | PROPID_QM_CNS          | 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d, 11111111-2222-4333-8444-555555555555 |
      | PROPID_QM_MACHINE_TYPE | Windows 11                                                                 |
      | PROPID_QM_OS           | 0x500                                                                      |
      | PROPID_QM_SITE_ID      | 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d                                       |
      | PROPID_QM_MODIFY_TIME  | 7                                                                          |
      | PROPID_QM_FOREIGN      | 1                                                                          |
      | PROPID_QM_MACHINE_ID   | 11111111-2222-4333-8444-555555555555                                       |
      | PROPID_Q_QUOTA         | 4321                                                                       |
      | PROPID_Q_LABEL         | ignored-label                                                              |

  @MQCN-3.2.5.1-14
  Scenario: A machine update whose GuidIdentifier names another queue manager follows a reading of errata E-23
    Given an update of another queue manager carrying all three modifiable properties
    When the target receives the message
    Then the outcome is what a reading of errata E-23 gives (MQCN-3.2.5.1-14)
    And the target still serves the next notification (MQCN-3.2.5.1-14)

  # --- deletion ----------------------------------------------------------------------------------

  @MQCN-3.2.5.1-16 @MQCN-3.2.5.1-18
  Scenario: A deletion removes the queue it names; PropertyId[0] (PROPID_D_SCOPE) does not make it object type 4
    Given the queue manager also owns the queue invoices
    And a deletion of the queue orders
    When the target receives the message
    Then the message changed exactly: the queue orders removed (MQCN-3.2.5.1-18)

  @MQCN-3.2.5.1-16
  Scenario: The object type of a deletion is PropertyValue[1], whatever PropertyValue[0] holds
    Given a deletion of the queue orders carrying PROPID_D_OBJTYPE = 2 and then PROPID_D_OBJTYPE = 1
    When the target receives the message
    Then the message changed exactly: the queue orders removed (MQCN-3.2.5.1-16)

  @MQCN-3.2.5.1-16 @MQCN-3.2.5.1-17
  Scenario Outline: A deletion whose PropertyValue[1] is <type>, not MQDS_QUEUE, is disregarded
    Given a deletion of the queue orders whose PropertyValue[1] is <type>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-17)
    And the target still serves the next notification (MQCN-3.2.5.1-17)

    Examples:
      | type |
      | 0    |
      | 2    |
      | 3    |
      | 4    |
      | 8    |
      | 255  |

  @MQCN-3.2.5.1-18
  Scenario: A deletion of a queue the queue manager does not own changes nothing
    Given a deletion of an unknown queue
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-18)
    And the target still serves the next notification (MQCN-3.2.5.1-18)

  @MQCN-3.2.5.1-16
  Scenario Outline: A deletion carrying only <propid> has no object type and is disregarded (errata E-12)
    Given a deletion of the queue orders carrying only <propid> = <value>
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-16)
    And the target still serves the next notification (MQCN-3.2.5.1-16)

    Examples:
      | propid           | value |
      | PROPID_D_SCOPE   | 1     |
      | PROPID_D_OBJTYPE | 1     |

  @MQCN-3.2.5.1-16
  Scenario: A deletion carrying no property has no object type and is disregarded (errata E-12)
    Given a deletion of the queue orders carrying no property
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-16)
    And the target still serves the next notification (MQCN-3.2.5.1-16)

  @MQCN-3.2.5.1-16
  Scenario Outline: A deletion whose PropertyId[1] is <second>, not PROPID_D_OBJTYPE, with the value 1 follows a reading of errata E-12
    Given a deletion of the queue orders carrying <first> = 1 and then <second> = 1
    When the target receives the message
    Then the outcome is what a reading of errata E-12 gives (MQCN-3.2.5.1-16)
    And the target still serves the next notification (MQCN-3.2.5.1-16)

    Examples:
      | first            | second           |
      | PROPID_D_SCOPE   | PROPID_Q_JOURNAL |
      | PROPID_D_SCOPE   | PROPID_D_SCOPE   |
      | PROPID_D_OBJTYPE | PROPID_D_SCOPE   |
      | PROPID_D_OBJTYPE | PROPID_Q_QUOTA   |

  @MQCN-3.2.5.1-1 @MQCN-3.2.5.1-16
  Scenario: An update with Command 0x03 is no deletion: the queue it names stays
    Given a deletion of the queue orders relabelled Command 0x03
    When the target receives the message
    Then the queue manager state is unchanged (MQCN-3.2.5.1-16)
    And the target still serves the next notification (MQCN-3.2.5.1-16)

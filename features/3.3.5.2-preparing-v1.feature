Feature: 3.3.5.2 Preparing a Change Notification Message Version 0x01
  A target's directory-service client describes each change as Notification Updates: the Command
  and the way the object is named follow from the operation, GuidMasterId names the directory
  service, and the PROPIDs (and some values) are prescribed per kind of change.

  Background:
    Given a directory-service client
    And the directory publishes the queue orders with distinctive values
    And the directory publishes the queue manager

  @MQCN-3.3.5.2-1 @MQCN-3.3.5.2-2 @MQCN-3.3.5.2-5 @MQCN-3.3.5.2-7 @MQCN-3.3.5.2-10 @MQCN-3.3.5.2-11 @MQCN-3.3.5.2-12 @MQCN-3.3.5.2-13 @MQCN-3.3.5.2-14 @MQCN-3.3.5.2-15 @MQCN-3.3.5.2-22 @MQCN-3.3.5.2-24 @MQCN-3.3.5.2-25 @MQCN-3.3.5.2-26 @MQCN-3.3.5.2-27 @MQCN-3.3.5.2-28
  Scenario: A directory-service client prepares a queue creation
    When the client is initialised towards the queue manager
    And the client sends a "QueueCreation" notification
    Then the emitted message is made of Notification Updates (MQCN-3.3.5.2-1)
    And the emitted update has Command 0x00 (MQCN-3.3.5.2-2)
    And the emitted update has UseGuid 0x00 (MQCN-3.3.5.2-5)
    And the emitted update's PathName is the queue's path name, null-terminated (MQCN-3.3.5.2-7)
    And the emitted update's GuidMasterId is the directory service's GUID (MQCN-3.3.5.2-10)
    And the emitted update's NumberOfProperties counts its properties (MQCN-3.3.5.2-11)
    And the emitted PropertyIds are property identifiers of 2.2.2.1 (MQCN-3.3.5.2-12)
    And the emitted PropertyId array has NumberOfProperties elements (MQCN-3.3.5.2-13)
    And the emitted update carries all 15 creation PROPIDs (MQCN-3.3.5.2-14)
    And the emitted creation leaves out the queue's PROPID_Q_ADS_PATH (MQCN-3.3.5.2-15)
    And every message the client emitted satisfies (MQCN-3.3.5.2-22)
    And every emitted message has Version 0x01 (MQCN-3.3.5.2-24)
    And the emitted NumberOfUpdateNotifications counts the updates in Data (MQCN-3.3.5.2-25)
    And the emitted Data holds the updates back to back and nothing else (MQCN-3.3.5.2-26)
    And the emitted message travels as the Body of an MSMQ Message (MQCN-3.3.5.2-27)
    And every emitted Message was sent as 3.3.5.3 says (MQCN-3.3.5.2-28)

  @MQCN-3.3.5.2-22
  Scenario Outline: A directory-service client carries the label "<label>" exactly as the directory holds it
    A label is any text: one that looks like the mark-up of a Notification Body is still copied
    byte for byte, never rewritten.

    Given the queue orders is labelled "<label>" in the directory
    When the client is initialised towards the queue manager
    And the client sends a "QueueCreation" notification
    Then the emitted creation carries the label "<label>" of the directory (MQCN-3.3.5.2-22)

    Examples:
      | label                    |
      | </ObjectGuid>            |
      | orders </ObjectGuid> old |

  @MQCN-3.3.5.2-3 @MQCN-3.3.5.2-6 @MQCN-3.3.5.2-8 @MQCN-3.3.5.2-9 @MQCN-3.3.5.2-10 @MQCN-3.3.5.2-17 @MQCN-3.3.5.2-18 @MQCN-3.3.5.2-22
  Scenario Outline: A directory-service client prepares a queue update changing <attributes>
    When the client is initialised towards the queue manager
    And the client sends a "QueueUpdate" notification changing "<attributes>"
    Then the emitted update has Command 0x01 (MQCN-3.3.5.2-3)
    And the emitted update has UseGuid 0x01 (MQCN-3.3.5.2-6)
    And the emitted update carries no PathName (MQCN-3.3.5.2-8)
    And the emitted update's GuidIdentifier is the GUID of the queue orders (MQCN-3.3.5.2-9)
    And the emitted update's GuidMasterId is the directory service's GUID (MQCN-3.3.5.2-10)
    And the emitted update carries PROPID_Q_QMID (MQCN-3.3.5.2-17)
    And the emitted update's other PROPIDs are exactly those of "<attributes>" (MQCN-3.3.5.2-18)
    And the emitted values are the queue's values of "<attributes>" (MQCN-3.3.5.2-22)
    And every message the client emitted satisfies (MQCN-3.3.5.2-22)

    Examples:
      | attributes                                       |
      | Quota                                            |
      | Journaling, BasePriority, JournalQuota           |
      | Security, Authentication, PrivacyLevel, Quota    |

  @MQCN-3.3.5.2-3 @MQCN-3.3.5.2-6 @MQCN-3.3.5.2-8 @MQCN-3.3.5.2-9 @MQCN-3.3.5.2-19 @MQCN-3.3.5.2-20 @MQCN-3.3.5.2-22
  Scenario Outline: A directory-service client prepares a machine update changing <attributes>
    When the client sends a "QueueManagerUpdate" notification changing "<attributes>"
    Then the emitted update has Command 0x01 (MQCN-3.3.5.2-3)
    And the emitted update has UseGuid 0x01 (MQCN-3.3.5.2-6)
    And the emitted update carries no PathName (MQCN-3.3.5.2-8)
    And the emitted update's GuidIdentifier is the GUID of the queue manager (MQCN-3.3.5.2-9)
    And the emitted update carries PROPID_QM_MACHINE_ID and PROPID_QM_FOREIGN (MQCN-3.3.5.2-19)
    And the emitted machine update's other PROPIDs are listed ones covering "<attributes>" (MQCN-3.3.5.2-20)
    And the emitted values are the queue manager's values of "<attributes>" (MQCN-3.3.5.2-22)
    And every message the client emitted satisfies (MQCN-3.3.5.2-22)

    Examples:
      | attributes                                |
      | QueueManagerQuota                         |
      | QueueManagerQuota, JournalQuota, Security |

  @MQCN-3.3.5.2-19 @MQCN-3.3.5.2-22
  Scenario Outline: A directory-service client carries PROPID_QM_FOREIGN <foreign> as the directory holds it
    A foreign queue manager (ForeignSystem 1) is published as well as an MSMQ one: the machine
    update carries the directory's ForeignSystem, whatever it is, never a constant.

    Given the queue manager has ForeignSystem <foreign> in the directory
    When the client sends a "QueueManagerUpdate" notification changing "QueueManagerQuota"
    Then the emitted update carries PROPID_QM_MACHINE_ID and PROPID_QM_FOREIGN (MQCN-3.3.5.2-19)
    And every message the client emitted satisfies (MQCN-3.3.5.2-22)

    Examples:
      | foreign |
      | 0       |
      | 1       |

  @MQCN-3.3.5.2-4 @MQCN-3.3.5.2-6 @MQCN-3.3.5.2-8 @MQCN-3.3.5.2-9 @MQCN-3.3.5.2-21 @MQCN-3.3.5.2-23
  Scenario: A directory-service client prepares a queue deletion
    When the client sends a "QueueDeletion" notification
    Then the emitted update has Command 0x02 (MQCN-3.3.5.2-4)
    And the emitted update has UseGuid 0x01 (MQCN-3.3.5.2-6)
    And the emitted update carries no PathName (MQCN-3.3.5.2-8)
    And the emitted update's GuidIdentifier is the GUID of the queue orders (MQCN-3.3.5.2-9)
    And the emitted PropertyIds are PROPID_D_SCOPE then PROPID_D_OBJTYPE (MQCN-3.3.5.2-21)
    And the emitted PropertyValues are MQDS_ENTERPRISESCOPE then MQDS_QUEUE (MQCN-3.3.5.2-23)

  @MQCN-3.3.5.2-1 @MQCN-3.3.5.2-22 @MQCN-3.3.5.2-24 @MQCN-3.3.5.2-25 @MQCN-3.3.5.2-26
  Scenario: Every message a directory-service client emits is a well-built Version 0x01 message
    When the client notifies every kind of change
    Then the emitted message is made of Notification Updates (MQCN-3.3.5.2-1)
    And every message the client emitted satisfies (MQCN-3.3.5.2-22)
    And every emitted message has Version 0x01 (MQCN-3.3.5.2-24)
    And the emitted NumberOfUpdateNotifications counts the updates in Data (MQCN-3.3.5.2-25)
    And the emitted Data holds the updates back to back and nothing else (MQCN-3.3.5.2-26)

  @MQCN-3.3.5.2-29
  Scenario: A Windows 2000 directory service may pass extra machine properties through (note <11>)
    Given the target follows the product profile "windows-2000"
    When the client sends a "QueueManagerUpdate" notification
    Then the emitted machine update carries ignored extras, as note <11> says (MQCN-3.3.5.2-29)

Feature: 3.3.5.3 Sending a Change Notification Message
  Every notification a target's client sends is an MSMQ Message with fixed attributes (300 s to
  reach the queue, Express, Normal, the MSMQ version's default hash, Sig20), whose Body is the
  message followed by one spare byte, enqueued to the queue opened at initialisation, under a message
  identifier of the sending computer it never reuses. A directory service also names the owning
  queue manager as the sender.

  Background:
    Given the directory publishes the queue orders
    And the directory publishes the queue manager

  @MQCN-3.3.5.3-1 @MQCN-3.3.5.3-2 @MQCN-3.3.5.3-3 @MQCN-3.3.5.3-4 @MQCN-3.3.5.3-7 @MQCN-3.3.5.3-8 @MQCN-3.3.5.3-9 @MQCN-3.3.5.3-10 @MQCN-3.3.5.3-13
  Scenario Outline: A <kind> client sends each notification as 3.3.5.3 says
    Given a <kind> client
    When the client is initialised towards the queue manager
    And the client notifies every kind of change
    Then every emitted Message goes to the notification queue of the queue manager (MQCN-3.3.5.3-1)
    And every emitted Message has a message identifier of the sending computer, used once (MQCN-3.3.5.3-1)
    And every emitted Message has TimeToReachQueue 300 seconds (MQCN-3.3.5.3-2)
    And every emitted Message has DeliveryGuarantee Express (MQCN-3.3.5.3-3)
    And every emitted Message has Class Normal (MQCN-3.3.5.3-4)
    And every emitted Body is one byte longer than its message (MQCN-3.3.5.3-7)
    And no emitted message depends on the value of its spare byte (MQCN-3.3.5.3-8)
    And every emitted message starts at the first byte of its Body (MQCN-3.3.5.3-9)
    And the emitted message travels as the Body of an MSMQ Message (MQCN-3.3.5.3-10)
    And every emitted Message went to the queue opened at initialisation (MQCN-3.3.5.3-13)

    Examples:
      | kind              |
      | directory-service |
      | queue-manager     |

  @MQCN-3.3.5.3-5 @MQCN-3.3.5.3-6
  Scenario Outline: A <kind> client following "<profile>" hashes with <hash> and signs with Sig20
    Given a <kind> client
    And the target follows the product profile "<profile>"
    When the client notifies every kind of change
    Then every emitted Message has the HashAlgorithm <hash> of MSMQ <msmq> (MQCN-3.3.5.3-5)
    And every emitted Message has AuthenticationLevel Sig20 (MQCN-3.3.5.3-6)

    Examples:
      | kind              | profile              | msmq | hash   |
      | queue-manager     | spec                 | 6.0  | SHA512 |
      | directory-service | spec                 | 6.0  | SHA512 |
      | directory-service | windows-2000         | 2.0  | MD5    |
      | queue-manager     | windows-xp-2003      | 3.0  | SHA1   |
      | queue-manager     | windows-vista-2008r2 | 4.0  | SHA1   |
      | queue-manager     | windows-8-later      | 6.0  | SHA512 |

  @MQCN-3.3.5.3-5
  Scenario: A Windows NT 4.0 directory-service client hashes with MD5
    Given a directory-service client
    And the target follows the product profile "windows-nt4"
    When the client notifies every kind of change
    Then every emitted Message has the HashAlgorithm MD5 of MSMQ 1.0 (MQCN-3.3.5.3-5)

  @MQCN-3.3.5.3-11 @MQCN-3.3.5.3-12
  Scenario Outline: A directory-service client names the owning queue manager as sender of a <operation>
    Given a directory-service client
    When the client sends a "<operation>" notification
    # the type first: it says what the identifier is (a SID cannot be a queue manager's GUID),
    # so a SID sender is blamed on MQCN-3.3.5.3-12 in adapter and transport mode alike
    Then every emitted Message has SenderIdentifierType QueueManagerIdentifier (MQCN-3.3.5.3-12)
    And every emitted Message has the SenderIdentifier of the queue manager (MQCN-3.3.5.3-11)

    Examples:
      | operation          |
      | QueueCreation      |
      | QueueUpdate        |
      | QueueDeletion      |
      | QueueManagerUpdate |

  @MQCN-3.3.5.3-14
  Scenario Outline: A client following "<profile>" uses <hash>, as note <12> says
    Given a client that sends the Version its product profile chooses
    And the target follows the product profile "<profile>"
    When the client notifies every kind of change
    Then every emitted Message has HashAlgorithm <hash>, as note <12> says (MQCN-3.3.5.3-14)

    Examples:
      | profile              | hash   |
      | windows-nt4          | MD5    |
      | windows-2000         | MD5    |
      | windows-xp-2003      | SHA1   |
      | windows-vista-2008r2 | SHA1   |
      | windows-8-later      | SHA512 |

  @MQCN-3.3.5.3-15
  Scenario: An MSMQ 1.0 directory service signs with Sig10 (note <13>)
    Given a client that sends the Version its product profile chooses
    And the target follows the product profile "windows-nt4"
    When the client notifies every kind of change
    Then every emitted Message has AuthenticationLevel Sig10, as note <13> says (MQCN-3.3.5.3-15)

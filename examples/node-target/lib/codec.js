'use strict';
// The wire format of [MS-MQCN] section 2 in one place: GUID (2.2.1), PROPVALUE (2.2.3),
// Change Notification Message (2.2.4), Notification Body (2.2.5), Notification Update (2.2.6).
// decodeMessage() is strict: any departure from section 2 throws a DecodeError, and the
// server then disregards the whole message (errata E-08).
module.exports = {
  ...require('./guid'),
  ...require('./propvalue'),
  ...require('./update'),
  ...require('./body'),
  ...require('./message'),
  DecodeError: require('./errors').DecodeError,
};

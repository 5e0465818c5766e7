'use strict';
// A violation of a wire-format rule: which spec section it breaks and at which byte.
// The section is given as "MQCN-<section>" so that reports can be compared loosely with
// the requirement IDs of the reference vectors (which add a "-<n>" the catalog assigns).
class DecodeError extends Error {
  constructor(section, offset, message) {
    super(`[MS-MQCN] ${section} at byte ${offset}: ${message}`);
    this.section = section;
    this.offset = offset;
  }
}
module.exports = { DecodeError };

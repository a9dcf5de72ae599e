/**
 * The shape of the credentials a host accepts: checked where the configuration is read (EQL_API_KEY,
 * EQL_HMAC_SECRET) and where keys are made and presented, from this one place.
 */

/** What an API key is: 16 to 128 letters, digits, "_", "." or "-". */
export const KEY_PATTERN = /^[A-Za-z0-9_.-]{16,128}$/;
/** The fewest characters of an HMAC secret. */
export const MIN_HMAC_SECRET_LENGTH = 16;

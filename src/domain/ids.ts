/** A version-4 UUID in its canonical text form (merchant client ids, intent ids): checked before any look-up. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

import { createHash } from 'node:crypto';

/** 32 fixed bytes per label: the sandbox's well-formed addresses no one holds the keys of. */
export const sandboxSeed = (label: string): Buffer => createHash('sha256').update(`payd sandbox ${label}`).digest();

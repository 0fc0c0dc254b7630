// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 030 as it is: PostgreSQL takes the same partial indexes.
export { up, down } from '../migrations/030_lean_intent_indexes.ts';

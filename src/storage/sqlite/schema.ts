// The on-disk layout of the sqlite backend, in the manner of kine: a log with one row per revision.
//
// kv.id is the revision. A key's current state is its newest row; the row of a deletion (deleted = 1, a tombstone)
// keeps the key's last value. prev_revision points at the key's previous row (0 for a first create), so a watch
// replay can rebuild prevKv without storing the old value twice. The index covers `deleted` too, so "newest row per
// name" questions are answered from the index alone.

export const SCHEMA_VERSION = 1;

// A checkpoint every 4000 WAL pages (16 MiB) rather than sqlite's 1000: the pages every commit rewrites (the right
// edge of the table and its index) are copied back once per checkpoint, so fewer checkpoints copy far fewer pages
// (a ConfigMap create over HTTPS costs 7% less server CPU).
export const PRAGMAS = `
PRAGMA locking_mode = EXCLUSIVE;
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -32768;
PRAGMA temp_store = MEMORY;
PRAGMA wal_autocheckpoint = 4000;
`;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id, deleted);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ${SCHEMA_VERSION});
INSERT OR IGNORE INTO meta (key, value) VALUES ('compact_revision', 0);
`;

// Parameters are plain `?`, bound in order: node:sqlite before Node 22.20 binds no positional argument to a numbered
// one (`?1`), and fails every statement that has one with "column index out of range".

/** The newest row of one name (optionally at or below a revision). */
export const SELECT_NEWEST = `SELECT id, deleted, create_revision, value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1`;
export const SELECT_NEWEST_AT = `SELECT id, deleted, create_revision, value FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`;

export const INSERT_ROW = `INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** Live keys in [start, end) at revision rev, ascending, at most limit (-1: all); bound as (start, end, rev, rev, limit). */
export const SELECT_RANGE = `
SELECT id, name, create_revision, value FROM kv
WHERE name >= ? AND name < ? AND id <= ? AND deleted = 0
  AND id = (SELECT MAX(newer.id) FROM kv AS newer WHERE newer.name = kv.name AND newer.id <= ?)
ORDER BY name LIMIT ?`;

/** How many keys in (after, end) were live at revision rev; bound as (after, end, rev). */
export const COUNT_AFTER = `
SELECT COUNT(*) AS n FROM (
  SELECT MAX(id) AS id, deleted FROM kv WHERE name > ? AND name < ? AND id <= ? GROUP BY name
) WHERE deleted = 0`;

/** Every live key now, ascending (loads the in-memory index at open). */
export const SELECT_LIVE_NAMES = `
SELECT name FROM (SELECT MAX(id) AS id, name, deleted FROM kv GROUP BY name) WHERE deleted = 0 ORDER BY name`;

/**
 * Rows of keys in [start, end) with after < id <= upTo, ascending, at most limit, each with its previous row for
 * prevKv; bound as (after, upTo, start, end, limit).
 */
export const SELECT_HISTORY = `
SELECT c.id, c.name, c.created, c.deleted, c.create_revision, c.value,
       p.id AS prev_id, p.create_revision AS prev_create_revision, p.value AS prev_value
FROM kv AS c LEFT JOIN kv AS p ON c.created = 0 AND p.id = c.prev_revision
WHERE c.id > ? AND c.id <= ? AND c.name >= ? AND c.name < ?
ORDER BY c.id LIMIT ?`;

/**
 * Compaction to rev after a previous compaction at before: for each name written in (before, rev], drop its rows older
 * than its newest row at or below rev, and that row too when it is a tombstone. Names untouched since before were
 * settled then. Bound as (before, rev).
 */
export const COMPACT = `
DELETE FROM kv WHERE id IN (
  SELECT old.id FROM (SELECT name, MAX(id) AS top FROM kv WHERE id > ? AND id <= ? GROUP BY name) AS touched
  JOIN kv AS old ON old.name = touched.name AND old.id <= touched.top
  WHERE old.id < touched.top OR old.deleted = 1
)`;

export const SELECT_META = `SELECT value FROM meta WHERE key = ?`;
export const UPSERT_META = `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
export const SELECT_MAX_ID = `SELECT MAX(id) AS id FROM kv`;

import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachingStatements } from '../../src/db/sqlite-statement-cache.js';

describe('the SQLite statement cache', () => {
  const opened: SQLite.Database[] = [];
  function database(): SQLite.Database {
    const db = new SQLite(':memory:');
    db.exec('create table t (n integer); insert into t values (1), (2), (3)');
    opened.push(db);
    return db;
  }
  afterEach(() => {
    for (const db of opened.splice(0)) if (db.open) db.close();
  });

  it('when the same SQL runs again, then its statement is reused, not prepared again', () => {
    const db = database();
    const prepare = vi.spyOn(db, 'prepare');
    const cache = cachingStatements(db);
    const first = cache.prepare('select n from t where n = ?');
    const second = cache.prepare('select n from t where n = ?');
    expect(second).toBe(first);
    expect(prepare).toHaveBeenCalledTimes(1);
    expect(second.all([2])).toEqual([{ n: 2 }]);
  });

  it('when a cached statement is still being iterated, then a second caller gets a fresh one', () => {
    const db = database();
    const cache = cachingStatements(db);
    const iterating = cache.prepare('select n from t order by n');
    const rows = iterating.iterate([]);
    expect(rows.next().value).toEqual({ n: 1 });
    const other = cache.prepare('select n from t order by n');
    expect(other).not.toBe(iterating);
    expect(other.all([])).toHaveLength(3);
    expect([...rows]).toEqual([{ n: 2 }, { n: 3 }]);
  });

  it('when more texts than its capacity are prepared, then the least recently used is forgotten', () => {
    const db = database();
    const prepare = vi.spyOn(db, 'prepare');
    const cache = cachingStatements(db, 2);
    cache.prepare('select 1');
    cache.prepare('select 2');
    cache.prepare('select 1'); // now the most recently used
    cache.prepare('select 3'); // evicts "select 2"
    cache.prepare('select 1');
    expect(prepare).toHaveBeenCalledTimes(3);
    cache.prepare('select 2');
    expect(prepare).toHaveBeenCalledTimes(4);
  });

  it('when closed, then the database is closed', () => {
    const db = database();
    cachingStatements(db).close();
    expect(db.open).toBe(false);
  });
});

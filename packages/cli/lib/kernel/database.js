'use strict'

const { resolveDatabase } = require('@nodebench/services')

// The database of the app under load, decided in this one place for every command: an app nodebench starts,
// whose workload asks for MongoDB (`services: ['mongodb']`), gets MONGODB_URI when it is set, else the
// running `db` service, else an embedded FerretDB started here and stopped with the run (@nodebench/services
// resolveDatabase). An app at --url alone has its own; MONGODB_URI, when set, still says which one the
// machine's description reads.

/**
 * Resolves to `{ env, uri, source, embedded, pid, name, stop() }`: `env` is `env` with the app's MONGODB_URI,
 * what the app, the workload's hooks and whatever runs after them (bench's flame and browser passes) are given.
 * `source`: resolveDatabase's ('MONGODB_URI', 'service', 'embedded'), or null when none was resolved;
 * `embedded`: the database is nodebench's FerretDB; `pid`: its process when nodebench knows it (FerretDB's),
 * else null.
 */
async function openDatabase (target, workload, { env, onProgress = () => {} }) {
  if (!target.starts || !workload.services.includes('mongodb')) {
    const none = { source: null, embedded: false, pid: null, name: null }
    return { env, uri: env.MONGODB_URI ?? null, ...none, stop: async () => {} }
  }
  const database = await resolveDatabase({ env, onProgress })
  return {
    env: { ...env, MONGODB_URI: database.uri },
    uri: database.uri,
    source: database.source,
    embedded: database.source !== 'MONGODB_URI',
    pid: database.pid ?? null,
    name: database.source === 'MONGODB_URI' ? 'MongoDB' : 'FerretDB',
    stop: () => database.stop()
  }
}

module.exports = { openDatabase }

'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { resolveDatabase, startDatabase } = require('@nodebench/services')

// The database of the app under load, decided in this one place for every command: an app nodebench starts,
// whose workload asks for MongoDB (`services: ['mongodb']`), gets MONGODB_URI when it is set; else, so that
// every run starts from the same state, an embedded FerretDB of its own on an empty data directory, started
// here and removed with the run. A workload that keeps its database (`database: 'keep'`: data it does not
// seed itself) gets the running `db` service, else an embedded FerretDB on nodebench's data directory
// (@nodebench/services resolveDatabase). An app at --url alone has its own; MONGODB_URI, when set, still says
// which one the machine's description reads.

/** A FerretDB on a new temporary data directory, which `stop()` removes (so does this process's exit). */
async function startFreshDatabase ({ env, onProgress }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-run-db-'))
  const remove = () => fs.rmSync(dir, { recursive: true, force: true })
  process.once('exit', remove)
  let database
  try {
    database = await startDatabase({ dataDir: path.join(dir, 'data'), env, onProgress })
  } catch (err) {
    process.removeListener('exit', remove)
    remove()
    throw err
  }
  return {
    uri: database.uri,
    source: 'embedded',
    pid: database.pid,
    stop: async () => {
      await database.stop()
      process.removeListener('exit', remove)
      remove()
    }
  }
}

/**
 * Resolves to `{ env, uri, source, embedded, fresh, pid, name, stop() }`: `env` is `env` with the app's
 * MONGODB_URI, what the app, the workload's hooks and whatever runs after them (bench's flame and browser
 * passes) are given. `source`: resolveDatabase's ('MONGODB_URI', 'service', 'embedded'), or null when none was
 * resolved; `embedded`: the database is nodebench's FerretDB; `fresh`: it started empty for this run; `pid`:
 * its process when nodebench knows it (FerretDB's), else null.
 */
async function openDatabase (target, workload, { env, onProgress = () => {} }) {
  const named = commandDatabase(target)
  if (!target.starts || !workload.services.includes('mongodb')) {
    if (named !== null) {
      onProgress(`--cmd gives the app a MongoDB database (${named}) that the workload does not declare: its collection ` +
        "sizes are not counted; add services: ['mongodb'] to the workload (with database: 'keep' to use that running one)")
    }
    const none = { source: null, embedded: false, fresh: false, pid: null, name: null }
    return { env, uri: env.MONGODB_URI ?? null, ...none, stop: async () => {} }
  }
  const fresh = !env.MONGODB_URI && workload.database !== 'keep'
  const database = fresh ? await startFreshDatabase({ env, onProgress }) : await resolveDatabase({ env, onProgress })
  if (named !== null && hostsOf(named) !== hostsOf(database.uri)) {
    onProgress(`warning: --cmd gives the app its own database (${named}), not the run's (MONGODB_URI=${database.uri}): ` +
      `the collection sizes are the run's${fresh ? ', and the app\'s database does not start empty' : ''}. Give the app ` +
      "the run's: --cmd 'MONGODB_URL=$MONGODB_URI ...' (in single quotes, so that your shell leaves it), or use the " +
      "running one with database: 'keep' in the workload")
  }
  return {
    env: { ...env, MONGODB_URI: database.uri },
    uri: database.uri,
    source: database.source,
    embedded: database.source !== 'MONGODB_URI',
    fresh,
    pid: database.pid ?? null,
    name: database.source === 'MONGODB_URI' ? 'MongoDB' : 'FerretDB',
    stop: () => database.stop()
  }
}

// A MongoDB URI written in an app's command (`MONGODB_URL=mongodb://127.0.0.1:40949/shop node src/index.js`).
const COMMAND_URI = /mongodb(?:\+srv)?:\/\/[^\s'"]+/

/** The MongoDB URI a --cmd gives its app itself, or null. */
function commandDatabase (target) {
  const found = typeof target.cmd === 'string' ? COMMAND_URI.exec(target.cmd) : null
  return found === null ? null : found[0]
}

/** A URI's hosts (`127.0.0.1:40949`), what tells two databases apart whatever database name follows. */
/** A URI's hosts, comparable: lower case, in order, each loopback spelling (localhost, 127.0.0.1, [::1]) one. */
function hostsOf (uri) {
  const match = /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]*)/.exec(uri || '')
  if (match === null) return uri
  const loopback = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?=:|$)/
  return match[1].toLowerCase().split(',').map((host) => host.replace(loopback, 'loopback')).sort().join(',')
}

module.exports = { openDatabase }

'use strict'

const os = require('node:os')
const { MongoClient } = require('mongodb')
const { ferretdbVersion } = require('@nodebench/services')

/** What the results were measured on: CPU, cores, memory, Node.js, and the database's name and version. */
async function describeMachine ({ mongodbUri, embedded = false }) {
  const cpus = os.cpus()
  return {
    cpuModel: cpus.length > 0 ? cpus[0].model.trim() : 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    memoryBytes: os.totalmem(),
    platform: os.platform(),
    release: os.release(),
    node: process.version,
    database: mongodbUri ? await describeDatabase(mongodbUri, { embedded }) : null
  }
}

/**
 * FerretDB reports MongoDB's version for compatibility and its own in `ferretdbVersion`; built as the
 * embedded database's launcher it says "unknown" (its version file is not in the Go module), so the
 * version comes from the launcher's go.mod.
 */
async function describeDatabase (uri, { embedded }) {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 })
  try {
    const info = await client.db('admin').command({ buildInfo: 1 })
    if (!info.ferretdbVersion) return { name: 'MongoDB', version: info.version }
    let version = String(info.ferretdbVersion)
    if (version === 'unknown' && embedded) version = ferretdbVersion()
    return { name: 'FerretDB', version: version.replace(/^v/, ''), compatibleWith: `MongoDB ${info.version}`, embedded }
  } catch (err) {
    return { name: 'unknown', version: 'unknown', error: err.message }
  } finally {
    await client.close().catch(() => {})
  }
}

module.exports = { describeMachine }

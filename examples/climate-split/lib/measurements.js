'use strict'

// MIPAS-like climate metadata, as the KIT study served it: one document per measurement of a trace gas by the
// MIPAS limb sounder (ENVISAT, 2002-2012) at a time, a place and an altitude. Documents are numbered (`_id`
// 0, 1, ...) and made from their number alone, so every run, every process and every seeding agrees on them,
// and a read of the first N documents in `_id` order has one right answer.

const DATABASE = 'nodebench'
const COLLECTION = 'measurements'
const INSERT_BATCH = 10_000

// The gases MIPAS retrieved, with the order of magnitude of their volume mixing ratios.
const SPECIES = Object.freeze([
  ['O3', 5e-6], ['H2O', 5e-6], ['CH4', 1.5e-6], ['N2O', 2e-7], ['HNO3', 5e-9], ['NO2', 3e-9], ['CO', 5e-8],
  ['CFC-11', 2e-10], ['CFC-12', 5e-10], ['ClONO2', 1e-9], ['N2O5', 1e-9], ['SF6', 6e-12]
])
const MISSION_START = Date.UTC(2002, 6, 1)
const MISSION_MS = Date.UTC(2012, 3, 8) - MISSION_START

/** A small PRNG (mulberry32): the same numbers for the same seed, everywhere. */
function randomOf (seed) {
  let state = seed >>> 0
  return function next () {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Measurement number `n`. */
function measurementOf (n) {
  const random = randomOf(n * 2654435761)
  const [species, scale] = SPECIES[n % SPECIES.length]
  return {
    _id: n,
    time: new Date(MISSION_START + Math.floor(random() * MISSION_MS)),
    orbit: 2000 + Math.floor(n / 1000),
    latitude: Math.round((random() * 180 - 90) * 1e4) / 1e4,
    longitude: Math.round((random() * 360 - 180) * 1e4) / 1e4,
    altitude: Math.round((6 + random() * 64) * 100) / 100,
    species,
    value: Number((scale * (0.5 + random())).toPrecision(6))
  }
}

/**
 * Makes `nodebench.measurements` hold exactly the documents 0 to `count` - 1: missing ones are inserted in
 * batches, extra ones removed. Resolves to `{ count, inserted, removed }`.
 */
async function seedMeasurements (client, { count, onProgress = () => {} }) {
  const collection = client.db(DATABASE).collection(COLLECTION)
  const removed = (await collection.deleteMany({ _id: { $gte: count } })).deletedCount
  const present = await collection.countDocuments({ _id: { $lt: count } })
  let inserted = 0
  if (present !== count) {
    const stored = await collection.find({ _id: { $lt: count } }, { projection: { _id: 1 } }).toArray()
    const have = new Set(stored.map((document) => document._id))
    let batch = []
    for (let n = 0; n < count; n++) {
      if (have.has(n)) continue
      batch.push(measurementOf(n))
      if (batch.length === INSERT_BATCH) {
        await collection.insertMany(batch, { ordered: false })
        inserted += batch.length
        batch = []
        onProgress(`climate-split: ${inserted + have.size} of ${count} measurements stored`)
      }
    }
    if (batch.length > 0) await collection.insertMany(batch, { ordered: false })
    inserted += batch.length
  }
  return { count, inserted, removed }
}

module.exports = { DATABASE, COLLECTION, SPECIES, measurementOf, seedMeasurements }

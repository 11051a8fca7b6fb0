'use strict'

const express = require('express')
const { COLLECTION, DATABASE } = require('./measurements')
const { streamRange } = require('./stream-documents')

// The front-end of the KIT study's platform ("Node Scala"): a read of N documents either whole, the front-end
// reading them itself (what each instance of a Node Cluster does), or split into sub-tasks, contiguous ranges
// of `_id`s, sent to the back-ends over HTTP, their answers streamed back and merged into one JSON array in
// order. Two ways to send them, as the paper's ParallelCommander: `concurrent` (executeConcurrent: all at
// once, sub-task i to back-end i mod K) and `iterative` (executeIterative: one at a time per back-end, each free
// back-end taking the next). Each step is a layer of its own, so the breakdown says where a split read's time
// went: planning the sub-tasks, waiting on the back-ends, merging their answers, writing the response.

const MAX_DOCUMENTS = 1_000_000

/** The front-end's Express app; `backends`: the back-ends' base URLs (none: whole reads only). */
function createFrontendApp ({ client, trace, backends }) {
  const app = express()
  if (trace !== null) app.use(trace)
  const collection = client.db(DATABASE).collection(COLLECTION)

  function parseRead (req, res, next) {
    const documents = Number(req.query.documents)
    if (!Number.isInteger(documents) || documents < 0 || documents > MAX_DOCUMENTS) {
      res.status(400).json({ error: `documents must be a whole number from 0 to ${MAX_DOCUMENTS}; received ${req.query.documents}` })
      return
    }
    res.locals.documents = documents
    next()
  }

  app.get('/api/measurements', parseRead, async function readAll (req, res) {
    await streamRange(collection, 0, res.locals.documents, res)
  })

  app.get('/api/measurements/split', parseRead, function planSubtasks (req, res, next) {
    if (backends.length === 0) {
      res.status(503).json({ error: 'this front-end has no back-ends: start it with --backends <n>' })
      return
    }
    const mode = req.query.mode ?? 'concurrent'
    const count = req.query.subtasks === undefined ? backends.length : Number(req.query.subtasks)
    if ((mode !== 'concurrent' && mode !== 'iterative') || !Number.isInteger(count) || count < 1 || count > 1000) {
      res.status(400).json({ error: `mode must be concurrent or iterative and subtasks a whole number from 1 to 1000; received mode=${mode}, subtasks=${req.query.subtasks}` })
      return
    }
    res.locals.mode = mode
    res.locals.subtasks = splitRange(res.locals.documents, count)
    next()
  }, async function awaitBackends (req, res, next) {
    const { subtasks, mode } = res.locals
    const traceparent = trace === null ? null : trace.traceparent(req)
    const fetchPart = (subtask, backend) => fetchSubtask(backends[backend], subtask, traceparent)
    res.locals.parts = mode === 'concurrent'
      ? await Promise.all(subtasks.map((subtask, i) => fetchPart(subtask, i % backends.length)))
      : await iterate(subtasks, backends.length, fetchPart)
    next()
  }, function mergeParts (req, res, next) {
    res.locals.merged = mergeJsonArrays(res.locals.parts)
    res.locals.parts = null
    next()
  }, function writeMeasurements (req, res) {
    res.status(200).type('json').send(res.locals.merged)
  })

  app.use(function answerFailure (err, req, res, next) {
    if (res.headersSent) return res.destroy(err)
    res.status(err.status ?? 503).json({ error: err.message })
  })
  return app
}

/** `documents` split into `count` contiguous ranges `{ from, to }` as even as can be (empty ones dropped). */
function splitRange (documents, count) {
  const ranges = []
  for (let i = 0; i < count; i++) {
    const from = Math.floor(documents * i / count)
    const to = Math.floor(documents * (i + 1) / count)
    if (to > from) ranges.push({ from, to })
  }
  return ranges
}

/** One sub-task's answer, the JSON array's text, from `backend`. */
async function fetchSubtask (backend, { from, to }, traceparent) {
  const response = await fetch(`${backend}/documents?from=${from}&to=${to}`, {
    headers: traceparent === null ? {} : { traceparent }
  })
  const text = await response.text()
  if (!response.ok) {
    throw Object.assign(new Error(`back-end ${backend} answered ${response.status} for documents ${from} to ${to}: ${text.slice(0, 200)}`), { status: 502 })
  }
  return text
}

/** executeIterative: each of `workers` back-ends takes the next sub-task when it is free; answers in sub-task order. */
async function iterate (subtasks, workers, run) {
  const parts = new Array(subtasks.length)
  let next = 0
  async function worker (backend) {
    while (next < subtasks.length) {
      const i = next++
      parts[i] = await run(subtasks[i], backend)
    }
  }
  await Promise.all(Array.from({ length: Math.min(workers, subtasks.length) }, (_, backend) => worker(backend)))
  return parts
}

/** JSON arrays' texts as one array's text, their elements in order (never parsed: a read of 300,000 documents). */
function mergeJsonArrays (texts) {
  const bodies = []
  for (const text of texts) {
    const body = text.trim().slice(1, -1).trim()
    if (body !== '') bodies.push(body)
  }
  return `[${bodies.join(',')}]`
}

module.exports = { createFrontendApp, splitRange, mergeJsonArrays }

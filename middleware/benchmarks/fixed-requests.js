'use strict'

// Serves a fixed number of requests of the benchmark app to a client in the same process, then exits.
// Used by instructions.js under valgrind, where what counts is the work done, not the time it took.
//
//   node benchmarks/fixed-requests.js bare|nodebench-breakdown <requests>

const http = require('node:http')
const express = require('express')
const { nodebenchTrace } = require('@nodebench/trace')
const { createApp } = require('./app')

const [variant, countText] = process.argv.slice(2)
const count = Number(countText)
if (!['bare', 'nodebench-breakdown'].includes(variant) || !Number.isInteger(count) || count < 1) {
  process.stderr.write('usage: node benchmarks/fixed-requests.js bare|nodebench-breakdown <requests>\n')
  process.exit(2)
}

const app = createApp(express, variant === 'bare' ? null : nodebenchTrace({ exporter: 'none' }))
const server = app.listen(0, '127.0.0.1', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  const get = (i) => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, path: `/api/items/${i}`, agent }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET /api/items/${i} answered ${res.statusCode}`))
      res.resume()
      res.on('end', resolve)
    }).on('error', reject)
  })
  try {
    for (let i = 0; i < count; i += 4) await Promise.all([get(i), get(i + 1), get(i + 2), get(i + 3)])
  } finally {
    agent.destroy()
    server.close()
  }
})

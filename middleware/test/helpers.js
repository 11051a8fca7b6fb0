'use strict'

const net = require('node:net')

/** Starts `app` on a free loopback port; `close()` also ends keep-alive connections. */
function listen (app) {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const base = `http://127.0.0.1:${server.address().port}`
      resolve({
        base,
        server,
        close: () => new Promise((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      })
    })
    server.on('error', reject)
  })
}

/** A loopback port nothing listens on. */
async function closedPort () {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Sets environment variables for the duration of `work`, then restores them. */
async function withEnv (vars, work) {
  const saved = {}
  for (const [key, value] of Object.entries(vars)) {
    saved[key] = process.env[key]
    process.env[key] = value
  }
  try {
    return await work()
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

module.exports = { listen, closedPort, withEnv }

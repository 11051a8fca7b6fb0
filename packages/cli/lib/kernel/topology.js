'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startNginx, parseAccessLog, freeLoopbackPort } = require('@nodebench/services')
const { startApp } = require('./app-process')

// How a cell's processes serve (`--topology`):
// - `cluster`: the app started with N processes (node:cluster, the 2017 study's PM2 design): one port.
// - `nginx`: N independent instances of the app, each a process of its own on a port of its own, behind
//   nginx (`--balancer least_conn|round_robin`, max_fails=3 fail_timeout=30s), as the TU Berlin study ran
//   them. Instances can be added (nginx reloads: its new workers take the new upstream, the old ones finish
//   their requests) and killed abruptly (SIGKILL; nginx routes around them) while the load runs.
// Both against the same database. A cell's varied values (kernel/sweep.js) go to every process it starts: into
// --cmd's placeholders, and as the workload's `start` arguments and environment of an app directory's server.js.
// Each process nodebench starts gets the breakdown source's variables (its metrics port), and the source is told
// when the set of processes changes.

/**
 * Starts a cell's topology (`onNotice`: startApp's, for every process); resolves to `{ topology, base, instances,
 * processes(), addInstance(), killInstance(), stop() }`. `instances`: `[{ address, pid, env, startedAt, killedAt }]`
 * (`env`: the breakdown source's variables it got). `processes()`: its processes as the process sampler's roots
 * (each with its role). After `stop()`, `traffic` holds nginx's access log (parseAccessLog's entries; empty for a
 * cluster). `traced: false` starts the app without nodebench (NODEBENCH=off); `role` names its processes
 * (default 'app').
 */
async function startTopology (target, options) {
  const { topology, balancer, processes, env, source, log = () => {}, onNotice, traced = true, role = 'app', values = {}, start } = options
  if (topology === 'cluster') {
    const sourceEnv = await source.instanceEnv()
    const app = await startApp(target, { processes, env: { ...env, ...sourceEnv }, onNotice, traced, values, start })
    source.attached()
    const instance = instanceOf(app, sourceEnv)
    return {
      topology,
      base: app.base,
      instances: [instance],
      traffic: [],
      processes: () => [{ pid: app.pid, role, childRole: `${role} worker` }],
      stop: () => app.stop()
    }
  }
  return startBalanced(target, { balancer, processes, env, source, log, onNotice, traced, values, start })
}

async function startBalanced (target, { balancer, processes, env, source, log, onNotice, traced, values, start }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodebench-nginx-'))
  const running = []
  let nginx = null
  const balanced = {
    topology: 'nginx',
    balancer,
    base: null,
    instances: [],
    traffic: [],
    processes: () => [
      ...(nginx === null ? [] : [{ pid: nginx.pid, role: 'nginx master', childRole: 'nginx worker' }]),
      ...balanced.instances.map((instance, index) => ({ pid: instance.pid, role: `instance ${index + 1}`, childRole: `instance ${index + 1} worker` }))
    ],
    async addInstance () {
      const instance = await startInstance()
      source.attached()
      await nginx.setUpstreams([...nginx.upstreams(), instance.address])
      instance.addedAt = Date.now()
      return instance
    },
    /** Kills the longest-running live instance at once (SIGKILL); nginx keeps it in its upstream. */
    killInstance () {
      const victim = running.find(({ instance }) => instance.killedAt === null)
      if (victim === undefined) return null
      victim.app.kill()
      victim.instance.killedAt = Date.now()
      return victim.instance
    },
    async stop () {
      try {
        // nginx writes its buffered access log when it stops.
        if (nginx !== null) await nginx.stop()
        if (nginx !== null && fs.existsSync(nginx.accessLog)) balanced.traffic = parseAccessLog(fs.readFileSync(nginx.accessLog, 'utf8'))
      } finally {
        await Promise.all(running.map(({ app }) => app.stop()))
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  }

  async function startInstance () {
    const sourceEnv = await source.instanceEnv()
    const app = await startApp(target, { processes: 1, env: { ...env, ...sourceEnv }, onNotice, traced, values, start })
    const instance = instanceOf(app, sourceEnv)
    running.push({ app, instance })
    balanced.instances.push(instance)
    return instance
  }

  try {
    for (let i = 0; i < processes; i++) await startInstance()
    const upstreams = balanced.instances.map((i) => i.address)
    const port = await freeLoopbackPort()
    nginx = await startNginx({ dir, port, upstreams, balancer, env, onProgress: log })
    source.attached()
  } catch (err) {
    await balanced.stop()
    throw err
  }
  balanced.base = nginx.url
  return balanced
}

function instanceOf (app, env) {
  return { address: new URL(app.base).host, pid: app.pid, env, startedAt: Date.now(), killedAt: null }
}

module.exports = { startTopology }

'use strict'

// Pipes: PipesConsumer#apply is given a parameter's pipes, each timed (transform), while the route's handler
// runs them for a request (handlerRunner marks which).

const { layerInfo } = require('../function-names')
const { reportInternalError } = require('../internal-errors')
const { openUnit, closeUnit, settled, classOf } = require('./units')

const pipeInfos = new WeakMap()
// A pipe's info by the pipe and the parameter it transforms: Nest gives every call a metadata object of its own,
// and a parameter's pipes run one after another (`@Query('limit', DefaultValuePipe, ParseIntPipe)`): the last
// few answers are kept, compared by the pipe and the metadata's type and data.
const PIPE_MEMO_SIZE = 4
const pipeMemo = Array.from({ length: PIPE_MEMO_SIZE }, () => ({
  pipe: null, type: undefined, data: undefined, info: null
}))
let pipeMemoNext = 0
// The record of the route whose handler (pipes, then the controller method) runs synchronously right now.
let pipeRecord = null

/** The route's handler (pipes, then the controller method), marked as running for `record` while it runs. */
function handlerRunner (record, next) {
  return function () {
    const previous = pipeRecord
    pipeRecord = record
    try {
      return next.apply(this, arguments)
    } finally {
      pipeRecord = previous
    }
  }
}

function shadowPipes (original) {
  return function (value, metadata, pipes) {
    const record = pipeRecord
    const timedPipes = record === null || record.done || !Array.isArray(pipes) || pipes.length === 0
      ? null
      : timedPipesOf(record, pipes)
    if (timedPipes === null) return original.apply(this, arguments)
    return original.call(this, value, metadata, timedPipes)
  }
}

function timedPipesOf (record, pipes) {
  try {
    const timed = new Array(pipes.length)
    for (let i = 0; i < pipes.length; i++) timed[i] = timedPipe(record, pipes[i])
    return timed
  } catch (err) {
    reportInternalError('time Nest pipes', err)
    return null
  }
}

function timedPipe (record, pipe) {
  if (pipe === null || typeof pipe !== 'object' || typeof pipe.transform !== 'function') return pipe
  return new TimedPipe(record, pipe)
}

/** A pipe as PipesConsumer runs it for one request (given to Nest's consumer only): its transform timed. */
class TimedPipe {
  constructor (record, pipe) {
    this.record = record
    this.pipe = pipe
  }

  transform (value, metadata) {
    const record = this.record
    const pipe = this.pipe
    const info = record.done ? null : pipeInfoOf(pipe, metadata)
    const index = info === null ? -1 : openUnit(record, info)
    if (index === -1) return pipe.transform(value, metadata)
    let result
    try {
      result = pipe.transform(value, metadata)
    } catch (err) {
      closeUnit(record, index, err)
      throw err
    }
    return settled(record, index, result, false)
  }
}

function pipeInfoOf (pipe, metadata) {
  try {
    const isObject = metadata !== null && typeof metadata === 'object'
    const type = isObject ? metadata.type : undefined
    const data = isObject ? metadata.data : undefined
    for (let i = 0; i < PIPE_MEMO_SIZE; i++) {
      const memo = pipeMemo[i]
      if (memo.pipe === pipe && memo.type === type && memo.data === data) return memo.info
    }
    const info = pipeInfo(pipe, metadata)
    const memo = pipeMemo[pipeMemoNext]
    pipeMemoNext = (pipeMemoNext + 1) % PIPE_MEMO_SIZE
    memo.pipe = pipe
    memo.type = type
    memo.data = data
    memo.info = info
    return info
  } catch (err) {
    reportInternalError('time a Nest pipe', err)
    return null
  }
}

/**
 * A pipe, with the parameter it transforms: `ParseIntPipe (id)`, `ParseIntPipe (query limit)`, `MyPipe (body)`.
 * Found by the pipe's class, then the parameter's type and name as Nest passes them (strings Nest keeps, whose
 * hashes V8 has cached): no name is built per request, only once per parameter.
 */
function pipeInfo (pipe, metadata) {
  const pipeClass = classOf(pipe)
  const key = pipeClass ?? pipe
  let byType = pipeInfos.get(key)
  if (byType === undefined) pipeInfos.set(key, (byType = new Map()))
  const isObject = metadata !== null && typeof metadata === 'object'
  const rawType = isObject ? metadata.type : undefined
  const type = typeof rawType === 'string' ? rawType : String(rawType ?? '')
  const data = isObject && typeof metadata.data === 'string' ? metadata.data : ''
  let byData = byType.get(type)
  if (byData === undefined) byType.set(type, (byData = new Map()))
  let info = byData.get(data)
  if (info === undefined) {
    info = layerInfo('pipe', pipe.transform, `${pipeClass?.name ?? 'pipe'} (${parameterOf(type, data)})`)
    byData.set(data, info)
  }
  return info
}

function parameterOf (type, data) {
  if (type === 'param' && data !== '') return data
  return data === '' ? type || 'value' : `${type} ${data}`
}

module.exports = { shadowPipes, handlerRunner }

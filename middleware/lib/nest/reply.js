'use strict'

// Nest writes the reply (RouterResponseController's apply, render, redirect, stream): a unit of kind response.

const { recordOf } = require('../request-record')
const { fixedInfo } = require('../function-names')
const { reportInternalError } = require('../internal-errors')
const { openUnit } = require('./units')

const RESPONSE_INFOS = {
  apply: fixedInfo('response', 'reply'),
  redirect: fixedInfo('response', 'redirect'),
  stream: fixedInfo('response', 'stream')
}
const renderInfos = new Map()

function shadowResponse (original, method) {
  return function (result, response) {
    openReply(response, method, arguments[2])
    return original.apply(this, arguments)
  }
}

/** Nest writes the reply: a unit open until the response finishes (or a later unit, a filter, begins). */
function openReply (response, method, template) {
  try {
    const record = response !== null && typeof response === 'object' ? recordOf(response) : undefined
    if (record !== undefined && !record.done) openUnit(record, method === 'render' ? renderInfo(template) : RESPONSE_INFOS[method])
  } catch (err) {
    reportInternalError('time a Nest reply', err)
  }
}

function renderInfo (template) {
  const name = typeof template === 'string' ? `render ${template}` : 'render'
  let info = renderInfos.get(name)
  if (info === undefined) {
    info = fixedInfo('response', name)
    if (renderInfos.size < 1000) renderInfos.set(name, info)
  }
  return info
}

module.exports = { shadowResponse }

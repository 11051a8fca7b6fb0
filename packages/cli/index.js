'use strict'

const { main, parseArguments } = require('./lib/main')

module.exports = { main, parseArguments }

// `router`: which of ROUTES (app.js) answers a path, and with which parameters. It reads `$location.path()`,
// which AngularJS has already decoded segment by segment; in hashbang mode that includes `%2F`, so a name
// holding a slash cannot be routed (ngRoute has the same limit). MongoDB database names cannot hold one.

(function () {
  'use strict'

  const SPECIAL = /[.*+?^${}()|[\]\\]/g

  angular.module('mongoAdmin').factory('router', ['ROUTES', function routerFactory (ROUTES) {
    const compiled = ROUTES.map(function compileRoute (route) {
      const names = []
      const source = route.path.split('/').map(function segment (part) {
        if (!part.startsWith(':')) return part.replace(SPECIAL, '\\$&')
        names.push(part.slice(1))
        return '([^/]+)'
      }).join('/')
      return { route, names, pattern: new RegExp('^' + source + '$') }
    })

    return {
      /** `{ route, params }` for `path`, or null when no route answers it. */
      match (path) {
        for (const { route, names, pattern } of compiled) {
          const found = pattern.exec(path)
          if (found === null) continue
          const params = {}
          names.forEach(function bind (name, i) { params[name] = found[i + 1] })
          return { route, params }
        }
        return null
      }
    }
  }])
})()

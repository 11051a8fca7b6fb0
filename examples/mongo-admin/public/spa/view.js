// `mongo-view`: where the current page goes, a small ngView. On every change of the URL's hash it marks the
// page as loading, loads the matched route's data, then swaps in the route's template, compiled on a new
// scope with the route's controller (`page` in the template). Until the data is there, the last page stays.
// `document.body.dataset.ready` is 'true' once a page (or an error) is on screen, for tests and measurements.

(function () {
  'use strict'

  angular.module('mongoAdmin')
    // A page emits this from its scope to be loaded and rendered again, after it changed what it shows.
    .constant('RELOAD_PAGE', 'mongoView:reload')
    .factory('readiness', ['$document', '$timeout', function readinessFactory ($document, $timeout) {
      const body = $document[0].body
      let pending = null
      return {
        loading () {
          $timeout.cancel(pending)
          pending = null
          body.dataset.ready = 'false'
        },
        // Called while the digest that links a page runs: its ng-repeats fill in later in that same digest.
        // A timeout without $apply runs after it, with the page in the DOM, and starts no digest of its own.
        rendered () {
          pending = $timeout(function markReady () {
            pending = null
            body.dataset.ready = 'true'
          }, 0, false)
        }
      }
    }])
    .directive('mongoView', [
      '$compile', '$controller', '$injector', '$location', '$q', '$templateCache',
      'router', 'readiness', 'databaseList', 'RELOAD_PAGE',
      function mongoViewDirective (
        $compile, $controller, $injector, $location, $q, $templateCache, router, readiness, databaseList, RELOAD_PAGE
      ) {
        return {
          restrict: 'A',
          link: function linkView (scope, element) {
            let pageScope = null
            // A page whose data arrives after the user moved on is dropped.
            let generation = 0

            function render () {
              if (redirected()) return
              const current = ++generation
              readiness.loading()
              const match = router.match($location.path())
              const loading = match === null
                ? $q.reject(notFound($location.path()))
                : invokeLoad(match.route.load, { params: match.params, search: $location.search() })
              // The sidebar lists the databases on every page: its list is loaded beside the page's data.
              $q.all([loading, databaseList.loaded()]).then(function showPage ([data]) {
                if (current === generation) swap(match.route, { data, params: match.params })
              }, function showError (error) {
                if (current === generation) swap({ template: 'error.html', controller: 'ErrorController' }, { error })
              })
            }

            // An address without the '!' (`/spa/#/db/...`, typed by hand or kept from before the port): AngularJS
            // reads that as an empty path and a fragment. Go to the route the fragment names, in place of that URL
            // in the history; that change of location renders it.
            function redirected () {
              if ($location.path() !== '') return false
              const fragment = $location.hash()
              $location.url(fragment.startsWith('/') ? fragment : '/').replace()
              return true
            }

            function invokeLoad (load, locals) {
              try {
                return $q.resolve($injector.invoke(load, null, locals))
              } catch (error) {
                return $q.reject(error)
              }
            }

            function swap (route, locals) {
              if (pageScope !== null) pageScope.$destroy()
              pageScope = scope.$new()
              element.html($templateCache.get(route.template))
              const link = $compile(element.contents())
              pageScope.page = $controller(route.controller, Object.assign({ $scope: pageScope }, locals))
              link(pageScope)
              readiness.rendered()
            }

            scope.$on('$locationChangeSuccess', render)
            scope.$on(RELOAD_PAGE, render)
          }
        }
      }
    ])

  function notFound (path) {
    const error = new Error('No page at ' + path)
    error.status = 404
    return error
  }
})()

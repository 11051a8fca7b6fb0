import 'reflect-metadata'
import { VersioningType } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { nodebenchTrace } from '@nodebench/trace'
import type { Server } from 'node:http'
import { AppModule } from './app.module.js'

export interface StartedApp {
  port: number
  server: Server
  close: () => Promise<void>
}

/** Starts the app on `port` (0: a free one); `traced: false` leaves nodebench out, for comparison. */
export async function bootstrap (port: number, { host = '127.0.0.1', traced = true } = {}): Promise<StartedApp> {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] })
  // The one line a Nest app needs: every request's breakdown, its segments named as this code names them.
  if (traced) app.use(nodebenchTrace({ expose: true }))
  app.setGlobalPrefix('api')
  app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' })
  await app.listen(port, host)
  const server = app.getHttpServer() as Server
  const address = server.address()
  return { port: typeof address === 'object' && address !== null ? address.port : port, server, close: () => app.close() }
}

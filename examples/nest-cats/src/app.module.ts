import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common'
import { CatsController } from './cats/cats.controller.js'
import { CatsModule } from './cats/cats.module.js'
import { RequestIdMiddleware } from './common/request-id.middleware.js'

@Module({ imports: [CatsModule] })
export class AppModule implements NestModule {
  configure (consumer: MiddlewareConsumer): void {
    consumer.apply(RequestIdMiddleware).forRoutes(CatsController)
  }
}

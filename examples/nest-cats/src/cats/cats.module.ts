import { Module } from '@nestjs/common'
import { CatsController } from './cats.controller.js'
import { CatsService } from './cats.service.js'

@Module({ controllers: [CatsController], providers: [CatsService] })
export class CatsModule {}

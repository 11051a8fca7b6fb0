import {
  Body, Controller, DefaultValuePipe, Get, Header, HttpCode, Param, ParseIntPipe, Post, Query, Res,
  StreamableFile, UseFilters, UseGuards, UseInterceptors
} from '@nestjs/common'
import type { Response } from 'express'
import { Readable } from 'node:stream'
import { Observable, of } from 'rxjs'
import { delay } from 'rxjs/operators'
import { ApiKeyGuard } from '../common/api-key.guard.js'
import { TimingInterceptor } from '../common/timing.interceptor.js'
import { TeapotFilter } from '../common/teapot.filter.js'
import { CatsService, type Cat, type CatPortrait } from './cats.service.js'
import { CreateCatPipe } from './create-cat.pipe.js'
import { TeapotError } from './teapot.error.js'

@Controller('cats')
@UseGuards(ApiKeyGuard)
@UseInterceptors(TimingInterceptor)
@UseFilters(TeapotFilter)
export class CatsController {
  constructor (private readonly cats: CatsService) {}

  @Get()
  findAll (@Query('limit', new DefaultValuePipe(10), ParseIntPipe) limit: number): Cat[] {
    return this.cats.findAll(limit)
  }

  @Get('teapot')
  teapot (): never {
    throw new TeapotError('this cat is a teapot')
  }

  @Get(':id')
  findOne (@Param('id', ParseIntPipe) id: number): CatPortrait {
    return this.cats.findOne(id)
  }

  @Get(':id/async')
  async findOneLater (@Param('id', ParseIntPipe) id: number): Promise<CatPortrait> {
    await new Promise((resolve) => setImmediate(resolve))
    return this.cats.findOne(id)
  }

  @Get(':id/observable')
  watchOne (@Param('id', ParseIntPipe) id: number): Observable<CatPortrait> {
    return of(this.cats.findOne(id)).pipe(delay(1))
  }

  @Get(':id/raw')
  rawOne (@Param('id', ParseIntPipe) id: number, @Res() res: Response): void {
    res.status(200).set('x-cat', String(id)).json(this.cats.findOne(id))
  }

  @Get(':id/portrait.txt')
  @Header('content-type', 'text/plain; charset=utf-8')
  portrait (@Param('id', ParseIntPipe) id: number): StreamableFile {
    const cat = this.cats.findOne(id)
    return new StreamableFile(Readable.from([`${cat.name}\n`, `${cat.portrait}\n`]))
  }

  @Post()
  @HttpCode(201)
  create (@Body(CreateCatPipe) fields: Omit<Cat, 'id'>): Cat {
    return this.cats.create(fields)
  }
}

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common'
import type { Response } from 'express'
import { Observable } from 'rxjs'
import { map } from 'rxjs/operators'

/** Stamps each response with the time the handler took, and wraps plain results in an envelope. */
@Injectable()
export class TimingInterceptor implements NestInterceptor {
  intercept (context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const startedAt = process.hrtime.bigint()
    const response = context.switchToHttp().getResponse<Response>()
    return next.handle().pipe(map((data) => {
      const micros = Number(process.hrtime.bigint() - startedAt) / 1000
      if (!response.headersSent) response.setHeader('x-handler-time-us', micros.toFixed(0))
      return Array.isArray(data) ? { count: data.length, data } : data
    }))
  }
}

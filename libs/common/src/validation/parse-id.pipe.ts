import { Injectable, PipeTransform } from '@nestjs/common';
import { ServiceException } from '../errors/service.exception';

/** The largest id: ids are 32-bit integer columns in PostgreSQL, which refuses a larger value in a query. */
export const MAX_ID = 2_147_483_647;

/** Path ids are integers from 1 to {@link MAX_ID}; anything else is a 422 naming the parameter. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}

  transform(value: string): number {
    const id = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!(id >= 1 && id <= MAX_ID)) {
      throw ServiceException.validation({ [this.name]: [`${this.name} must be an integer from 1 to ${MAX_ID}`] });
    }
    return id;
  }
}

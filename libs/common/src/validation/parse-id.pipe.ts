import { Injectable, PipeTransform } from '@nestjs/common';
import { ServiceException } from '../errors/service.exception';

/** Path ids are positive integers; anything else is a 422 naming the parameter. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}

  transform(value: string): number {
    if (!/^\d{1,15}$/.test(value) || Number(value) < 1) {
      throw ServiceException.validation({ [this.name]: [`${this.name} must be a positive integer`] });
    }
    return Number(value);
  }
}

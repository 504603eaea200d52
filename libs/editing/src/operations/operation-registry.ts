import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { PIPELINE_PHASES, registerStep } from '@app/image-pipeline';
import { OperationsDto } from '../dto/operations.dto';
import type { EditOperation } from './edit-operation';

/**
 * The registered operations in the processing order: by phase (PIPELINE_PHASES), those of one phase in the order of
 * their registration, as pipelineSteps() runs them. Read on every request, so kept ordered as one array.
 */
const operations: EditOperation[] = [];

/**
 * Registers an operation: its member on OperationsDto (allowed through the strict shape check, and described in
 * the OpenAPI document, which is built after every registration), and its step in the pipeline.
 */
export function registerEditOperation<Value, Part>(operation: EditOperation<Value, Part>): void {
  const { name, dto, property, description } = operation;
  if (members().includes(name)) {
    throw new Error(`operations.${name} is taken: an operation registers a member of its own`);
  }
  if (!dto === !property) throw new Error(`operations.${name}: give a class (dto) or a property's decorators`);
  // decoding and encoding are the pipeline's own; everything between takes operations (pipeline-steps.ts)
  if (operation.step.phase === 'encode') throw new Error(`operations.${name}: no operation runs in encode`);
  if (dto) {
    ApiPropertyOptional({ type: () => dto, description })(OperationsDto.prototype, name);
    Allow()(OperationsDto.prototype, name);
  } else {
    for (const decorate of property!) decorate(OperationsDto.prototype, name);
  }
  registerStep({ ...operation.step, name });
  // after the last one of its phase or an earlier phase: the list stays in the processing order
  const phase = phaseIndex(operation as EditOperation);
  const at = operations.findIndex((registered) => phaseIndex(registered) > phase);
  operations.splice(at === -1 ? operations.length : at, 0, operation as EditOperation);
}

/** The registered operations, in the processing order. */
export function editOperations(): readonly EditOperation[] {
  return operations;
}

/** The registered operations a resolved request asks for, each with its value and its field path. */
export function askedOperations(
  registered: Readonly<Record<string, unknown>> | undefined,
): Array<{ operation: EditOperation; value: unknown; path: string }> {
  if (!registered) return [];
  return operations.flatMap((operation) => {
    const value = registered[operation.name];
    return value === undefined ? [] : [{ operation, value, path: `operations.${operation.name}` }];
  });
}

/** The members OperationsDto documents: the built-in groups and the operations registered so far. */
function members(): string[] {
  const listed: unknown = Reflect.getMetadata(SWAGGER_PROPERTIES, OperationsDto.prototype);
  return Array.isArray(listed) ? listed.map((key) => String(key).replace(/^:/, '')) : [];
}

/** Where @nestjs/swagger keeps a class's documented properties (each as `:name`). */
const SWAGGER_PROPERTIES = 'swagger/apiModelPropertiesArray';

function phaseIndex({ step }: EditOperation): number {
  return PIPELINE_PHASES.indexOf(step.phase);
}

import type { OutputFormat, RegisteredStep } from '@app/image-pipeline';
import type { DtoClass, Issues } from '../dto/dto-validation';
import type { ModelCapability } from '../model-capabilities';

/**
 * One edit operation in one folder (docs/extending.md, "An edit operation"): the member of `operations` it reads,
 * its request schema (a class-validator class, which is also its OpenAPI schema), how a valid value is read
 * into the resolved request, its part of the plan once the image size is known, its pipeline step with its
 * memory, and the model it needs. Registered once (operations/index.ts); the request's validation, the OpenAPI
 * document, the planner, the memory estimate, the 501 gate and the processing order read the registration.
 */
export interface EditOperation<Value = unknown, Part = unknown> {
  /** The member of `operations` (`watermark`): also the step's name and the key of its part in the plan. */
  readonly name: string;
  /** Its request object's class: strict validation (unknown members refused) and its OpenAPI schema. */
  readonly dto: DtoClass<object>;
  /** The member's description in the OpenAPI document. */
  readonly description: string;
  /**
   * The resolved value of an object that passed the class's rules (`dto`), with its defaults; rules across
   * members add to `issues` under `path` (the value is then ignored).
   */
  read(dto: object, path: string, issues: Issues): Value | undefined;
  /**
   * Rules across operations (style transfer after a background removal), read from the raw `operations` object
   * when the request names this operation, so that a conflict is reported even when a member has problems of its
   * own; problems go to `issues` under their field paths.
   */
  check?(operations: Readonly<Record<string, unknown>>, issues: Issues): void;
  /** Images the operation reads besides the input (URLs or storage references), loaded before the pixel work. */
  asset?(value: Value): { field: string; location: string } | undefined;
  /** Its part of the plan for the image as it enters its step (`size`) and the output's format; undefined: none. */
  plan(value: Value, context: OperationPlanContext): Part | undefined;
  /** Its step and memory (the pipeline's side: RegisteredStep); `name` is the operation's. */
  readonly step: Omit<RegisteredStep<Part>, 'name'>;
  /**
   * The kind of model it needs: without one installed, the request is refused with 501 naming the field
   * (`operations.<name>`, or its member `at`), when `when` says the value needs it (absent: always).
   */
  readonly needs?: { capability: ModelCapability; at?: string; when?(value: Value): boolean };
}

export interface OperationPlanContext {
  /** The image's size as it enters the step (after every earlier resize, padding or outpaint). */
  size: { width: number; height: number };
  format: OutputFormat;
  /** The field path of the operation (`operations.watermark`), for the problems it finds (422). */
  path: string;
}

import type { DetectedFace, OutputFormat, RegisteredStep, Rgba } from '@app/image-pipeline';
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
  /**
   * Its request object's class: strict validation (unknown members refused) and its OpenAPI schema. An operation
   * whose value is not an object (`padding: "10%"`) gives `property` instead.
   */
  readonly dto?: DtoClass<object>;
  /**
   * For a value that is not an object: the decorators of its property on OperationsDto, which validate it with the
   * rest of `operations` and document it (an ApiPropertyOptional with its type and `description`).
   */
  readonly property?: readonly PropertyDecorator[];
  /** The member's description in the OpenAPI document. */
  readonly description: string;
  /**
   * The resolved value, with its defaults: of an object that passed its class's rules (`dto`), or of a value that
   * passed its property's (`property`); rules across members add to `issues` under `path` (the value is then
   * ignored).
   */
  read(value: unknown, path: string, issues: Issues): Value | undefined;
  /**
   * Rules across operations (style transfer after a background removal), read from the raw `operations` object
   * when the request names this operation, so that a conflict is reported even when a member has problems of its
   * own; problems go to `issues` under their field paths.
   */
  check?(operations: Readonly<Record<string, unknown>>, issues: Issues): void;
  /** Images the operation reads besides the input (URLs or storage references), loaded before the pixel work. */
  asset?(value: Value): { field: string; location: string } | undefined;
  /**
   * Its part of the plan for the image as it enters its step (`size`: after every step before it) and the
   * output's format; undefined: nothing to run. A part that changes the size says so in `step.size`, and the
   * operations after it are planned for the size it leaves. Problems that need the size throw a 422.
   */
  plan(value: Value, context: OperationPlanContext): Part | undefined;
  /** Checks that need the final size (the result of every step), 422: polish within 16 MP of its target. */
  checkFinal?(value: Value, size: { width: number; height: number }): void;
  /** Its step and memory (the pipeline's side: RegisteredStep); `name` is the operation's. */
  readonly step: Omit<RegisteredStep<Part>, 'name'>;
  /**
   * The kinds of model it needs: without one installed, the request is refused with 501 naming the field
   * (`operations.<name>`, or its member `at`), when `when` says the value needs it (absent: always).
   */
  readonly needs?: ReadonlyArray<{
    capability: ModelCapability;
    at?: string;
    when?(value: Value): boolean;
    /** What was asked for, named in the 501 where the path alone does not say it (an upscale model). */
    asked?(value: Value): string | undefined;
  }>;
  /**
   * Whether it is planned from the faces in the input (identity_crop): the executor then finds them first, within
   * the same admission, and plans the edit again with them (OperationPlanContext.faces).
   */
  findsFaces?(value: Value): boolean;
}

export interface OperationPlanContext {
  /** The image's size as it enters the step (after every earlier crop, padding, resize or outpaint). */
  size: { width: number; height: number };
  format: OutputFormat;
  /** The background colour: `background.color`, else transparent where the input has alpha and the format keeps it, else white. */
  fill: Rgba;
  /** Largest image, in pixels, an edit may make (MAX_INPUT_PIXELS). */
  maxPixels: number;
  /** The faces found in the input (display pixels), once looked for (findsFaces); absent before. */
  faces?: readonly DetectedFace[];
  /** The field path of the operation (`operations.watermark`), for the problems it finds (422). */
  path: string;
}

import type { AppConfig } from '@app/common';
import type { GenerativeBackend } from '@app/image-pipeline';
import { Automatic1111Backend, ComfyUiBackend, OpenAiBackend } from './http';
import { LocalBackend } from './local/local.backend';

/**
 * The one place where configuration becomes a generative backend (GENERATIVE_BACKEND; docs/configuration.md,
 * "Scenes and generators"): `local` (default) draws everything on the CPU; the HTTP adapters send what needs a
 * generator to the team's own ComfyUI, Automatic1111/Forge or OpenAI-compatible server, and keep what needs
 * none (shadows, a locked template) on the local backend, which each is given. `none` provides no backend.
 */
export function createBackend(config: AppConfig): { backend: GenerativeBackend | null; local: LocalBackend } {
  const local = new LocalBackend();
  const settings = config.generative;
  switch (settings.backend) {
    case 'local':
      return { backend: local, local };
    case 'none':
      // operations that need a generator answer 501 (ModelCapabilities 'generative' is off)
      return { backend: null, local };
    case 'comfyui':
      return { backend: new ComfyUiBackend(settings, local), local };
    case 'automatic1111':
      return { backend: new Automatic1111Backend(settings, local), local };
    case 'openai':
      return { backend: new OpenAiBackend(settings, local), local };
  }
}

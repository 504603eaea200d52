// `npm run dashboard:client`: the dashboard's typed client, generated from the committed openapi.json.
import { defineConfig } from '@hey-api/openapi-ts';

export default defineConfig({
  input: '../../openapi.json',
  output: { path: 'src/client', postProcess: ['prettier'] },
  plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
});

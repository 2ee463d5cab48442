import { z } from 'zod';

// Every message zod writes (422 answers, settings errors) is Romanian, like the rest of the
// API. Imported for its effect by the request validation.
z.config(z.locales.ro());

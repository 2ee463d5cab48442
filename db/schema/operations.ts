import { boolean, index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

export const nomenclator = pgTable('nomenclator', {
  cod: text('cod').primaryKey(),
  denumire: text('denumire').notNull(),
  // 'fallback' for the 18 codes loaded at start-up, 'registry' once refreshed.
  source: text('source').notNull().default('fallback'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const operationMappings = pgTable(
  'operation_mappings',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id').notNull(),
    codOpService: text('cod_op_service').notNull(),
    codPrestatie: text('cod_prestatie').notNull(),
    // Kept for compatibility; it no longer holds a resolved row back.
    autoSend: boolean('auto_send').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('operation_mappings_account_code_uq').on(t.accountId, t.codOpService)],
);

export const textRules = pgTable(
  'text_rules',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id').notNull(),
    // Substring matched against an item's `denumire`, case- and diacritic-insensitive.
    pattern: text('pattern').notNull(),
    codPrestatie: text('cod_prestatie').notNull(),
    // Lower runs first.
    priority: integer('priority').notNull().default(100),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('text_rules_account_idx').on(t.accountId, t.priority)],
);

/**
 * No other module uses the backup of the embedded database: its only surface is its routes (routes.ts), which app.ts registers.
 */
export {};

/**
 * No other module uses CSV and Parquet exports: its only surface is its routes (routes.ts), which app.ts registers.
 */
export {};

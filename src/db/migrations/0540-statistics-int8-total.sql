-- An exact sum of bigint counters that stays a bigint (docs/adr/0024).
--
-- sum(bigint) returns numeric: PostgreSQL accumulates in a 128-bit integer, then builds a numeric
-- for every group and prints it digit by digit, which is most of the executor's time in a
-- statistics answer (a year of days summed from the rollup). This aggregate adds with int8pl,
-- the bigint `+`: exact, and an overflow (9.2 × 10^18, i.e. 9.2 × 10^12 money units in micros)
-- is an error, never a wrong total. With an initial 0 an empty group totals 0, as
-- coalesce(sum(x), 0) did.
CREATE AGGREGATE int8_total(bigint) (SFUNC = int8pl, STYPE = bigint, INITCOND = '0', COMBINEFUNC = int8pl, PARALLEL = SAFE);

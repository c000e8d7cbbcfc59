-- tests/data/store-v1.sql: a results store as schema version 1 made it
-- (store/schema.c's first step, verbatim) holding one run stored the v1
-- way: tests/test_store.sh opens it with the current code and checks the
-- migration to version 2 kept the run and added the new columns.
BEGIN;
CREATE TABLE machines ( id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, name TEXT NOT NULL, cpu TEXT NOT NULL, cores INTEGER, numa TEXT NOT NULL, kernel TEXT NOT NULL, libc TEXT NOT NULL, hypervisor TEXT NOT NULL);
CREATE TABLE runs ( id INTEGER PRIMARY KEY, machine INTEGER NOT NULL REFERENCES machines(id), revision TEXT NOT NULL, date TEXT NOT NULL, seed TEXT NOT NULL, command TEXT NOT NULL, path TEXT NOT NULL, csv_hash TEXT NOT NULL, header TEXT NOT NULL, meta TEXT NOT NULL, UNIQUE (revision, date, seed, command));
CREATE TABLE rows ( run INTEGER NOT NULL REFERENCES runs(id), ord INTEGER NOT NULL, workload TEXT, threads INTEGER, tokens INTEGER, wake TEXT, hash TEXT, variant TEXT, round INTEGER, status TEXT, ns_per_op REAL, cpu_ns_per_op REAL, line TEXT NOT NULL, UNIQUE (run, ord));
CREATE INDEX rows_run ON rows(run);
CREATE INDEX rows_variant ON rows(variant);
CREATE INDEX runs_date ON runs(date);
INSERT INTO machines VALUES (1, '0123456789abcdef', 'Old CPU/4c/5.10.0', 'Old CPU', 4, '1 node (node0: cpus 0-3)', 'Linux 5.10.0 x86_64', '', 'no');
INSERT INTO runs VALUES (1, 1, 'v1fixture', '2025-01-02T03:04:05Z', '42', 'run --variants glibc,negcount', '/nowhere/v1.csv', '00000000deadbeef',
  'variant,workload,threads,tokens,wake,ops,ns_per_op,status,round,cpu_user_ns,cpu_sys_ns',
  '# futexlab v1fixture' || char(10) || '# date: 2025-01-02T03:04:05Z' || char(10) || '# kernel: Linux 5.10.0 x86_64' || char(10) || '# cpu: Old CPU' || char(10) || '# cores: 4' || char(10) || '# numa: 1 node (node0: cpus 0-3)' || char(10) || '# command: run --variants glibc,negcount' || char(10) || '# seed: 42' || char(10) || '# hypervisor: no');
INSERT INTO rows VALUES (1, 0, 'pingpong', 2, 1, 'exact', NULL, 'glibc', 1, 'ok', 150.5, 300.0, 'glibc,pingpong,2,1,exact,1000,150.5,ok,1,200000,100000');
INSERT INTO rows VALUES (1, 1, 'pingpong', 2, 1, 'exact', NULL, 'negcount', 1, 'ok', 120.25, 250.0, 'negcount,pingpong,2,1,exact,1000,120.25,ok,1,150000,100000');
INSERT INTO rows VALUES (1, 2, 'pingpong', 2, 1, 'exact', NULL, 'glibc', 2, 'ok', 149.0, NULL, 'glibc,pingpong,2,1,exact,1000,149.0,ok,2,,');
PRAGMA user_version = 1;
COMMIT;

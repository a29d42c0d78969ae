ALTER TABLE "reports" ADD COLUMN "centre_id" text;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reports_live_claims_idx" ON "reports" USING btree ("status","claim_expires_at");--> statement-breakpoint
CREATE INDEX "reports_centre_queue_idx" ON "reports" USING btree ("centre_id","status","priority","created_at","id") WHERE "reports"."centre_id" is not null;--> statement-breakpoint
CREATE INDEX "reports_centre_reviewed_idx" ON "reports" USING btree ("centre_id","status","reviewed_at") WHERE "reports"."centre_id" is not null;
--> statement-breakpoint
-- A centre's figures (decision 0046): each report carries its patient profile's centre, copied by a
-- trigger when it is written; the list counters (decision 0031) also count each centre's reports
-- by status and priority (r:cs:centre:status:priority) and its registered profiles (p:c:centre).
-- Written by hand: the column filled, the counters' triggers replaced, and the new keys counted.
UPDATE reports SET centre_id = patients.centre_id FROM patients
WHERE patients.id = reports.patient_id AND patients.centre_id IS NOT NULL AND reports.centre_id IS NULL;
--> statement-breakpoint
-- A report written without its centre gets its profile's, before it is stored (and counted).
CREATE FUNCTION reports_centre_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.centre_id IS NULL THEN
    SELECT p.centre_id INTO NEW.centre_id FROM patients p WHERE p.id = NEW.patient_id;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER reports_centre_fill BEFORE INSERT ON reports FOR EACH ROW EXECUTE FUNCTION reports_centre_fill();
--> statement-breakpoint
-- A profile moved to another centre (or its centre removed) takes its reports along.
CREATE FUNCTION reports_centre_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE reports SET centre_id = NEW.centre_id WHERE patient_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER reports_centre_follow AFTER UPDATE OF centre_id ON patients FOR EACH ROW
WHEN (OLD.centre_id IS DISTINCT FROM NEW.centre_id) EXECUTE FUNCTION reports_centre_follow();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_reports() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:st:' || OLD.status || ':' || OLD.report_type END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:p:' || OLD.patient_id END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN OLD.second_of IS NOT NULL THEN 'r:ss:' || OLD.status || ':' || OLD.second_specialty END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:cs:' || OLD.centre_id || ':' || OLD.status || ':' || OLD.priority AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:st:' || NEW.status || ':' || NEW.report_type END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:p:' || NEW.patient_id END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NOT NULL THEN 'r:ss:' || NEW.status || ':' || NEW.second_specialty END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:cs:' || NEW.centre_id || ':' || NEW.status || ':' || NEW.priority AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER list_counts_reports_update ON reports;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority, second_of, second_specialty, centre_id ON reports FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.report_type IS DISTINCT FROM NEW.report_type OR OLD.patient_id IS DISTINCT FROM NEW.patient_id OR OLD.expert_id IS DISTINCT FROM NEW.expert_id OR OLD.followup_expert_id IS DISTINCT FROM NEW.followup_expert_id OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.second_of IS DISTINCT FROM NEW.second_of OR OLD.second_specialty IS DISTINCT FROM NEW.second_specialty OR OLD.centre_id IS DISTINCT FROM NEW.centre_id) EXECUTE FUNCTION list_counts_reports();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_patients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN OLD.centre_access_revoked_at IS NULL THEN 'pc:' || OLD.centre_id END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'p:c:' || OLD.centre_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN NEW.centre_access_revoked_at IS NULL THEN 'pc:' || NEW.centre_id END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'p:c:' || NEW.centre_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
INSERT INTO list_counts (key, n)
SELECT k, count(*) FROM (
  SELECT 'r:cs:' || reports.centre_id || ':' || reports.status || ':' || reports.priority AS k FROM reports
  UNION ALL SELECT 'p:c:' || patients.centre_id AS k FROM patients
) v WHERE k IS NOT NULL GROUP BY k;

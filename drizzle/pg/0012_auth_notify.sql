-- Nodes keep the sessions they resolved in memory for a short while (decision 0041); every change
-- that could end or alter a signed-in actor tells every node which users to forget, through
-- NOTIFY on the channel "carebridge_auth" (payload: user ids joined by ",", or "*" for "all").
-- Statement-level triggers with transition tables: a prune of thousands of sessions sends one
-- notification, not thousands. Updates of sessions.last_seen_at alone are not announced.
CREATE FUNCTION "carebridge_auth_announce"(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(array_length(ids, 1), 0) > 100 THEN
    PERFORM pg_notify('carebridge_auth', '*');
  ELSIF coalesce(array_length(ids, 1), 0) > 0 THEN
    PERFORM pg_notify('carebridge_auth', array_to_string(ids, ','));
  END IF;
END
$$;
--> statement-breakpoint
-- One function for every statement-level trigger: its argument names the column holding the user
-- id ("id" on users, "user_id" elsewhere); the rows are read through jsonb so one body serves both.
CREATE FUNCTION "carebridge_auth_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM "carebridge_auth_announce"(ARRAY(SELECT DISTINCT to_jsonb(o) ->> TG_ARGV[0] FROM old_rows o));
  ELSE
    PERFORM "carebridge_auth_announce"(ARRAY(SELECT DISTINCT to_jsonb(n) ->> TG_ARGV[0] FROM new_rows n));
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION "carebridge_auth_session_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "carebridge_auth_announce"(ARRAY[OLD."user_id", NEW."user_id"]);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "users_auth_update" AFTER UPDATE ON "users" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "carebridge_auth_rows"('id');
--> statement-breakpoint
CREATE TRIGGER "users_auth_delete" AFTER DELETE ON "users" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "carebridge_auth_rows"('id');
--> statement-breakpoint
CREATE TRIGGER "sessions_auth_delete" AFTER DELETE ON "sessions" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "carebridge_auth_rows"('user_id');
--> statement-breakpoint
CREATE TRIGGER "sessions_auth_update" AFTER UPDATE ON "sessions" FOR EACH ROW WHEN (OLD."user_id" IS DISTINCT FROM NEW."user_id" OR OLD."token_hash" IS DISTINCT FROM NEW."token_hash" OR OLD."kind" IS DISTINCT FROM NEW."kind" OR OLD."expires_at" IS DISTINCT FROM NEW."expires_at") EXECUTE FUNCTION "carebridge_auth_session_row"();
--> statement-breakpoint
CREATE TRIGGER "expert_specialties_auth_insert" AFTER INSERT ON "expert_specialties" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "carebridge_auth_rows"('user_id');
--> statement-breakpoint
CREATE TRIGGER "expert_specialties_auth_update" AFTER UPDATE ON "expert_specialties" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "carebridge_auth_rows"('user_id');
--> statement-breakpoint
CREATE TRIGGER "expert_specialties_auth_delete" AFTER DELETE ON "expert_specialties" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "carebridge_auth_rows"('user_id');

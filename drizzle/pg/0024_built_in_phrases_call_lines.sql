CREATE TABLE "built_in_phrases" (
	"id" text PRIMARY KEY NOT NULL,
	"reviewed_by" text,
	"texts_hash" text,
	"reviewed_at" timestamp (3) with time zone,
	"recorded_by" text,
	"retired_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "call_lines" (
	"node" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"detail" text,
	"changed_at" timestamp (3) with time zone NOT NULL,
	"seen_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "built_in_phrases" ADD CONSTRAINT "built_in_phrases_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
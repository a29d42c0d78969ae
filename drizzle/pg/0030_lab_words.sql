CREATE TABLE "lab_words" (
	"locale" text NOT NULL,
	"word" text NOT NULL,
	"correction" text,
	"corrected_by" text,
	"corrected_at" timestamp (3) with time zone,
	"reviewed_by" text,
	"reviewed_on" text,
	"reviewed_hash" text,
	"recorded_by" text,
	"recorded_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lab_words_locale_word_pk" PRIMARY KEY("locale","word")
);
--> statement-breakpoint
ALTER TABLE "lab_words" ADD CONSTRAINT "lab_words_corrected_by_users_id_fk" FOREIGN KEY ("corrected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_words" ADD CONSTRAINT "lab_words_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
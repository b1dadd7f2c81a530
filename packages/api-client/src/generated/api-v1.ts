// Generated from the api's OpenAPI document (/api/v1 operations) by
// packages/api-client/scripts/generate-types.mjs. Do not edit: run `pnpm --filter @feedback/api-client generate`.
/* eslint-disable */
export interface paths {
    "/api/v1/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Counts over a period: suggestions and tickets created, by status; survey responses, average score and NPS.
         * @description Requires the scope `analytics:read`.
         */
        get: operations["getAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy/users/{externalId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything held about one of your users.
         * @description Requires the scope `privacy:read`.
         */
        get: operations["exportUserData"];
        put?: never;
        post?: never;
        /**
         * Erases one of your users: anonymises their suggestions, deletes the rest, and no later webhook carries them. Idempotent.
         * @description Requires the scope `privacy:write`.
         */
        delete: operations["eraseUserData"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Lists suggestions, each with its author.
         * @description Newest first by default. With `updated_since`, only items updated at or after that instant, oldest update first: sweep every page to recover after missed webhooks, and process items idempotently.
         *
         *     Requires the scope `suggestions:read`.
         */
        get: operations["listSuggestions"];
        put?: never;
        /**
         * Creates a suggestion on behalf of one of your users.
         * @description Requires the scope `suggestions:write`.
         */
        post: operations["createSuggestion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Lists tickets.
         * @description Newest first by default. With `updated_since`, only items updated at or after that instant, oldest update first: sweep every page to recover after missed webhooks, and process items idempotently.
         *
         *     Requires the scope `tickets:read`.
         */
        get: operations["listTickets"];
        put?: never;
        /**
         * Opens a ticket on behalf of one of your users, with its first message.
         * @description Requires the scope `tickets:write`.
         */
        post: operations["createTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Comment: {
            body: string;
            /** Format: date-time */
            created_at: string;
            id: number;
        };
        Error: {
            /**
             * @description Stable code: branch on this.
             * @enum {string}
             */
            error: "malformed_json" | "validation_failed" | "missing_api_key" | "invalid_api_key" | "revoked_api_key" | "invalid_session" | "invalid_public_key" | "invalid_credentials" | "insufficient_scope" | "insufficient_role" | "plan_upgrade_required" | "not_found" | "method_not_allowed" | "email_taken" | "last_owner" | "user_erased" | "invalid_transition" | "ticket_closed" | "delivery_in_progress" | "delivery_withheld" | "secret_rotated_meanwhile" | "endpoint_paused" | "recovery_in_progress" | "recovery_ended" | "idempotency_in_progress" | "idempotency_key_reused" | "invalid_cursor" | "unsafe_url" | "plan_limit_reached" | "payload_too_large" | "unsupported_media_type" | "rate_limited" | "too_many_test_deliveries" | "upgrade_required" | "internal_error" | "service_unavailable" | "propagation_unconfirmed";
            /** @description With validation_failed: the offending field (JSON Pointer) or parameter. */
            field?: string;
            /** @description Human-readable; do not branch on it. */
            message: string;
            /** @description With validation_failed on a body: the problems found, 20 at most, the first of them also in `field` and `message`. */
            violations?: {
                /** @description JSON Pointer; empty for the whole body. */
                field: string;
                message: string;
            }[];
            /** @description With validation_failed: how many problems found beyond the 20 listed, when there were more. */
            violations_omitted?: number;
        };
        InsufficientScopeError: {
            /** Format: uri */
            docs_url: string;
            /** @constant */
            error: "insufficient_scope";
            granted_scopes: ("suggestions:read" | "suggestions:write" | "tickets:read" | "tickets:write" | "analytics:read" | "privacy:read" | "privacy:write")[];
            /** Format: uri */
            manage_scopes_url: string;
            message: string;
            /** @enum {unknown} */
            required_scope: "suggestions:read" | "suggestions:write" | "tickets:read" | "tickets:write" | "analytics:read" | "privacy:read" | "privacy:write";
        };
        Suggestion: {
            /** @description Owner of the record: whoever opened the ticket, created the suggestion or answered the survey. */
            author: {
                /** @description The id the customer's own system gave this user. */
                external_id: string | null;
                name: string | null;
            };
            body: string | null;
            comment_count: number;
            /** Format: date-time */
            created_at: string;
            id: number;
            /** @enum {unknown} */
            status: "open" | "under_review" | "planned" | "in_progress" | "completed" | "declined";
            title: string;
            /** Format: date-time */
            updated_at: string;
        };
        SurveyResponse: {
            answers: {
                [key: string]: string | number | boolean | null;
            };
            /** Format: date-time */
            created_at: string;
            id: number;
            score: number | null;
            survey_id: string;
        };
        Ticket: {
            /** @description Owner of the record: whoever opened the ticket, created the suggestion or answered the survey. */
            author: {
                /** @description The id the customer's own system gave this user. */
                external_id: string | null;
                name: string | null;
            };
            /** Format: date-time */
            created_at: string;
            id: number;
            /** @description Human-facing ticket number, e.g. "T-1042". */
            number: string;
            /** @enum {unknown} */
            status: "open" | "pending" | "solved" | "closed";
            subject: string;
            /** Format: date-time */
            updated_at: string;
        };
        TicketMessage: {
            body: string;
            /** Format: date-time */
            created_at: string;
            id: number;
            /** @enum {unknown} */
            sender_type: "agent" | "app_user";
            ticket_id: number;
            /** @enum {unknown} */
            visibility: "public" | "internal";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getAnalytics: {
        parameters: {
            query?: {
                /** @description Start of the period, inclusive. Default: 30 days before `to`. */
                from?: string;
                /** @description End of the period, exclusive. Default: now. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        period: {
                            /** Format: date-time */
                            from: string;
                            /** Format: date-time */
                            to: string;
                        };
                        suggestions: {
                            by_status: {
                                completed: number;
                                declined: number;
                                in_progress: number;
                                open: number;
                                planned: number;
                                under_review: number;
                            };
                            created: number;
                        };
                        survey_responses: {
                            average_score: number | null;
                            count: number;
                            /** @description Net Promoter Score, -100 to 100: % of 9-10 minus % of 0-6. */
                            nps: number | null;
                            /** @description Responses with a score. */
                            scored: number;
                        };
                        tickets: {
                            by_status: {
                                closed: number;
                                open: number;
                                pending: number;
                                solved: number;
                            };
                            created: number;
                        };
                    };
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportUserData: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Your system's id for the user. */
                externalId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        comments: Record<string, never>[];
                        /** Format: date-time */
                        exported_at: string;
                        external_id: string;
                        suggestions: components["schemas"]["Suggestion"][];
                        survey_responses: components["schemas"]["SurveyResponse"][];
                        tickets: Record<string, never>[];
                    };
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    eraseUserData: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Your system's id for the user. */
                externalId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What was erased (zeros when there was nothing left). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        comments_deleted: number;
                        /** @description Events not yet sent about their suggestions, caused by someone else (a status change by the team): sent with the author removed. */
                        events_anonymised: number;
                        /** @description Events the user caused, or about records now deleted, not yet sent: now never sent. */
                        events_withheld: number;
                        external_id: string;
                        /** @description Kept on the board with the author removed. */
                        suggestions_anonymised: number;
                        survey_responses_deleted: number;
                        /** @description With all their messages. */
                        tickets_deleted: number;
                    };
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSuggestions: {
        parameters: {
            query?: {
                /** @description The `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Items per page, 1 to 100. Default: 25. */
                limit?: number;
                /** @description ISO 8601 instant with a time zone. Only items updated at or after it, oldest update first. */
                updated_since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Suggestion"][];
                        /** @description Pass as `cursor` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSuggestion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Retrying with the same key returns the first answer (with `Idempotent-Replayed: true`) and creates nothing twice. Another request with the same key gets 422 `idempotency_key_reused`. A key is kept for at least 24 hours; after that the same key is a new request. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    author: {
                        /** @description Your system's id for this user. */
                        external_id: string;
                        name?: string | null;
                    };
                    body?: string | null;
                    title: string;
                };
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same `Idempotency-Key`. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suggestion"];
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_in_progress`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `user_erased`: a retry whose earlier answer named a user since erased; it is not run again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused`. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTickets: {
        parameters: {
            query?: {
                /** @description The `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Items per page, 1 to 100. Default: 25. */
                limit?: number;
                /** @description ISO 8601 instant with a time zone. Only items updated at or after it, oldest update first. */
                updated_since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Ticket"][];
                        /** @description Pass as `cursor` for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTicket: {
        parameters: {
            query?: never;
            header?: {
                /** @description Retrying with the same key returns the first answer (with `Idempotent-Replayed: true`) and creates nothing twice. Another request with the same key gets 422 `idempotency_key_reused`. A key is kept for at least 24 hours; after that the same key is a new request. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    author: {
                        /** @description Your system's id for this user. */
                        external_id: string;
                        name?: string | null;
                    };
                    /** @description The first message of the ticket. */
                    body: string;
                    subject: string;
                };
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same `Idempotency-Key`. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /** @description `validation_failed` (with `field`), `malformed_json` or `invalid_cursor`. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key` or `revoked_api_key`; see WWW-Authenticate. */
            401: {
                headers: {
                    /** @description Bearer, with the reason. */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope` (with the fields below) or `plan_upgrade_required`. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InsufficientScopeError"] | components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such record in this app, or no such route. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `method_not_allowed`. */
            405: {
                headers: {
                    /** @description The methods this path takes. */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_in_progress`. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `user_erased`: a retry whose earlier answer named a user since erased; it is not run again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: bodies are at most 256 KiB. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_reused`. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address (IPv6: its /64). */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: ours; retry later, quoting X-Request-Id to support. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`. */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}

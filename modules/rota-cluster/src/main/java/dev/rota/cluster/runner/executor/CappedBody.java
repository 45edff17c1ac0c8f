package dev.rota.cluster.runner.executor;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A webhook's reply, read up to {@code cap} bytes: past the cap the subscription is cancelled (the
 * client closes the connection), so a webhook that answers gigabytes costs at most {@code cap}
 * bytes of heap.
 */
final class CappedBody implements HttpResponse.BodySubscriber<CappedBody.Reply> {
  /** What was read; {@code truncated} when the webhook had more to send. */
  record Reply(byte[] bytes, boolean truncated) {
    String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private final int cap;
  private final ByteArrayOutputStream read = new ByteArrayOutputStream();
  private final CompletableFuture<Reply> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  private CappedBody(int cap) {
    this.cap = cap;
  }

  static HttpResponse.BodyHandler<Reply> handler(int cap) {
    return info -> new CappedBody(cap);
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    subscription.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    for (ByteBuffer buffer : buffers) {
      int room = cap - read.size();
      if (buffer.remaining() > room) {
        byte[] part = new byte[room];
        buffer.get(part);
        read.writeBytes(part);
        subscription.cancel();
        result.complete(new Reply(read.toByteArray(), true));
        return;
      }
      byte[] all = new byte[buffer.remaining()];
      buffer.get(all);
      read.writeBytes(all);
    }
    subscription.request(1);
  }

  @Override
  public void onError(Throwable error) {
    result.completeExceptionally(error);
  }

  @Override
  public void onComplete() {
    result.complete(new Reply(read.toByteArray(), false));
  }

  @Override
  public CompletionStage<Reply> getBody() {
    return result;
  }
}
